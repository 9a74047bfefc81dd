"""The Kubernetes manifests (``deploy/kubernetes``), offline: rendered by kustomize as
``kubectl apply -k`` renders them, alone and with every optional component; every object valid
against the Kubernetes API schemas of the oldest and newest supported versions (the operators'
resources against the fields their CRDs document); yamllint-clean; and the properties that
matter checked on what would reach the cluster: each container's environment, expanded as the
kubelet expands it, read back by the arena's own settings; ports, probes and metrics agreeing
with those settings; secrets referenced, never inlined, and created by the README's commands;
non-root, read-only, bounded pods; the migration Job applied first."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers import ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML not installed (pip install -e '.[dev]')")
kubernetes_validate = pytest.importorskip("kubernetes_validate",
                                          reason="kubernetes-validate not installed (pip install -e '.[dev]')")
jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed (pip install -e '.[dev]')")
yamllint_config = pytest.importorskip("yamllint.config", reason="yamllint not installed (pip install -e '.[dev]')")
yamllint_linter = pytest.importorskip("yamllint.linter", reason="yamllint not installed (pip install -e '.[dev]')")

KUBE = ROOT / "deploy" / "kubernetes"
README = KUBE / "README.md"
# The oldest Kubernetes the README promises (the preStop `sleep` action is on by default from
# 1.30) and the newest whose schemas kubernetes-validate ships.
OLDEST = "1.30"
COMPONENTS = ("keda", "prometheus-operator", "grpc-loadbalancer", "tls")
# Kinds without a schema in kubernetes-validate, checked against CRD_SCHEMAS below instead.
CUSTOM_KINDS = {"ScaledObject", "TriggerAuthentication", "PodMonitor", "PrometheusRule"}
COMPONENT_COMMAND = {"referee": ["serve"], "worker": ["worker"], "live-worker": ["worker"], "web": ["web"],
                     "migrate": ["db", "upgrade"]}
SECRETISH = re.compile(r"PASSWORD|TOKEN|SECRET", re.I)
FAKE_SECRETS = {("arena-postgresql", "password"): "pg0pass", ("arena-redis", "redis-password"): "redis0pass",
                ("arena-admin", "token"): "admin0token0for0the0arena0deploy0tests0k"}


def kustomize_command() -> list[str] | None:
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    return None


def render(folder: Path) -> list[dict[str, Any]]:
    command = kustomize_command()
    assert command is not None
    done = subprocess.run([*command, str(folder)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    """What kustomize makes of the base, the example overlay, the example overlay with each
    component, and with all of them. Kustomize takes components only by relative path, so the
    combinations are overlays written into a copy of the folder."""
    if kustomize_command() is None:
        pytest.skip("neither kubectl (with its built-in kustomize) nor kustomize is installed")
    tree = tmp_path_factory.mktemp("kubernetes") / "kubernetes"
    shutil.copytree(KUBE, tree)
    combinations = {f"example+{name}": [name] for name in COMPONENTS} | {"example+all": list(COMPONENTS)}
    found = {"base": render(tree / "base"), "example": render(tree / "overlays" / "example")}
    for label, components in combinations.items():
        overlay = tree / "overlays" / f"test-{label.replace('+', '-')}"
        overlay.mkdir()
        (overlay / "kustomization.yaml").write_text(yaml.safe_dump({
            "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
            "resources": ["../example"], "components": [f"../../components/{name}" for name in components]}))
        found[label] = render(overlay)
    return found


def objects(renders, kind: str, label: str = "example+all") -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in renders[label] if doc["kind"] == kind}


def pods(docs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(workload, pod template)`` of every Deployment and Job."""
    return [(doc, doc["spec"]["template"]) for doc in docs if doc["kind"] in ("Deployment", "Job")]


def containers(docs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    return [(workload, template, container) for workload, template in pods(docs)
            for container in [*template["spec"].get("initContainers", []), *template["spec"]["containers"]]]


def component(template: dict[str, Any]) -> str:
    return template["metadata"]["labels"]["app.kubernetes.io/component"]


def config_map(docs: list[dict[str, Any]], name: str) -> dict[str, str]:
    (found,) = [doc for doc in docs if doc["kind"] == "ConfigMap" and doc["metadata"]["name"] == name]
    return found["data"]


def environment(docs: list[dict[str, Any]], container: dict[str, Any],
                secrets: dict[tuple[str, str], str] = FAKE_SECRETS) -> dict[str, str]:
    """The container's environment as the kubelet makes it: ``envFrom`` first, then ``env`` in
    order, each ``$(NAME)`` replaced by a variable defined before it (left as written when
    there is none), ``$$`` for a literal ``$``; secrets from ``secrets``."""
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(config_map(docs, source["configMapRef"]["name"]))

    def expand(value: str) -> str:
        def one(found: re.Match[str]) -> str:
            if found[0] == "$$":
                return "$"
            return env.get(found[1], found[0])

        return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", one, value)

    for variable in container.get("env", []):
        if "valueFrom" in variable:
            ref = variable["valueFrom"]["secretKeyRef"]
            env[variable["name"]] = secrets[(ref["name"], ref["key"])]
        else:
            env[variable["name"]] = expand(variable.get("value", ""))
    return env


def cores(quantity: str | int | float) -> float:
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def mebibytes(quantity: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    for unit, factor in units.items():
        if quantity.endswith(unit):
            return float(quantity[: -len(unit)]) * factor
    return float(quantity) / 2**20


def readme_commands() -> str:
    """The README's shell commands with their line continuations joined."""
    return README.read_text().replace("\\\n", " ")


def chart_values(name: str) -> dict[str, Any]:
    return yaml.safe_load((KUBE / "services" / f"{name}-values.yaml").read_text())


# Linting and schemas


def test_yamllint_finds_nothing_in_any_file():
    config = yamllint_config.YamlLintConfig(file=str(KUBE / ".yamllint"))
    files = sorted(path for path in KUBE.rglob("*") if path.suffix in (".yaml", ".yml") or path.name == ".yamllint")
    assert len(files) >= 10
    problems = [f"{path.relative_to(ROOT)}:{problem.line}: {problem.message} ({problem.rule})"
                for path in files for problem in yamllint_linter.run(path.read_text(), config, str(path))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("version", [OLDEST, "latest"])
def test_every_object_is_valid_for_kubernetes(renders, version):
    version = kubernetes_validate.latest_version() if version == "latest" else version
    for label, docs in renders.items():
        unchecked = set()
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.SchemaNotFoundError:
                unchecked.add(doc["kind"])
            except kubernetes_validate.ValidationError as error:
                path = ".".join(str(part) for part in error.path)
                pytest.fail(f"{label}: {doc['kind']}/{doc['metadata']['name']} at {path}: {error.message}")
        assert unchecked <= CUSTOM_KINDS, f"{label}: no schema for {unchecked - CUSTOM_KINDS}"


def test_the_schemas_catch_a_misspelt_field(renders):
    # Strict validation would otherwise pass anything: a probe under a wrong name must fail.
    deployment = objects(renders, "Deployment", "example")["arena-referee"]
    container = dict(deployment["spec"]["template"]["spec"]["containers"][0])
    container["readinesProbe"] = container.pop("readinessProbe")
    broken = {**deployment, "spec": {**deployment["spec"], "template": {
        **deployment["spec"]["template"], "spec": {**deployment["spec"]["template"]["spec"], "containers": [container]}}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, OLDEST, strict=True)


STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
NAME_REF = {"type": "object", "required": ["name"], "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "kind": {"type": "string"}, "apiVersion": {"type": "string"}}}
LABEL_SELECTOR = {"type": "object", "additionalProperties": False,
                  "properties": {"matchLabels": STRING_MAP, "matchExpressions": {"type": "array"}}}


def custom_resource(spec: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "required": ["apiVersion", "kind", "metadata", "spec"],
            "properties": {"spec": {"type": "object", "required": required, "additionalProperties": False,
                                    "properties": spec}}}


# The fields of the operators' CRDs (KEDA 2.x, Prometheus Operator v1) these manifests may use.
CRD_SCHEMAS = {
    "ScaledObject": custom_resource({
        "scaleTargetRef": {**NAME_REF, "properties": {**NAME_REF["properties"], "envSourceContainerName": {"type": "string"}}},
        "pollingInterval": {"type": "integer"}, "cooldownPeriod": {"type": "integer"},
        "initialCooldownPeriod": {"type": "integer"}, "idleReplicaCount": {"type": "integer"},
        "minReplicaCount": {"type": "integer"}, "maxReplicaCount": {"type": "integer"},
        "fallback": {"type": "object"}, "advanced": {"type": "object"},
        "triggers": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["type", "metadata"], "additionalProperties": False,
            "properties": {"type": {"type": "string"}, "name": {"type": "string"}, "metadata": STRING_MAP,
                           "authenticationRef": NAME_REF, "metricType": {"type": "string"},
                           "useCachedMetrics": {"type": "boolean"}}}}}, ["scaleTargetRef", "triggers"]),
    "TriggerAuthentication": custom_resource({
        "secretTargetRef": {"type": "array", "items": {
            "type": "object", "required": ["parameter", "name", "key"], "additionalProperties": False,
            "properties": {"parameter": {"type": "string"}, "name": {"type": "string"}, "key": {"type": "string"}}}},
        "env": {"type": "array"}, "configMapTargetRef": {"type": "array"}, "podIdentity": {"type": "object"},
        "hashiCorpVault": {"type": "object"}}, []),
    "PodMonitor": custom_resource({
        "selector": LABEL_SELECTOR, "namespaceSelector": {"type": "object"}, "jobLabel": {"type": "string"},
        "podTargetLabels": {"type": "array"}, "sampleLimit": {"type": "integer"},
        "podMetricsEndpoints": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "properties": {name: {"type": "string"} for name in
                           ("port", "path", "interval", "scrapeTimeout", "scheme")}
            | {"honorLabels": {"type": "boolean"}, "relabelings": {"type": "array"},
               "metricRelabelings": {"type": "array"}}}}}, ["selector", "podMetricsEndpoints"]),
    "PrometheusRule": custom_resource({
        "groups": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["name", "rules"], "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "interval": {"type": "string"},
                           "limit": {"type": "integer"}, "partial_response_strategy": {"type": "string"},
                           "rules": {"type": "array", "items": {
                               "type": "object", "required": ["expr"], "additionalProperties": False,
                               "oneOf": [{"required": ["alert"]}, {"required": ["record"]}],
                               "properties": {"alert": {"type": "string"}, "record": {"type": "string"},
                                              "expr": {"type": "string"}, "for": {"type": "string"},
                                              "keep_firing_for": {"type": "string"},
                                              "labels": STRING_MAP, "annotations": STRING_MAP}}}}}}}, ["groups"]),
}


def test_operator_resources_use_only_fields_their_crds_define(renders):
    seen = set()
    for doc in renders["example+all"]:
        if doc["kind"] in CUSTOM_KINDS:
            jsonschema.validate(doc, CRD_SCHEMAS[doc["kind"]])
            seen.add(doc["kind"])
    assert seen == CUSTOM_KINDS
    # KEDA takes trigger metadata as strings only: a bare number is refused by its CRD.
    scaled = objects(renders, "ScaledObject")["arena-worker"]
    scaled["spec"]["triggers"][0]["metadata"]["listLength"] = 4
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(scaled, CRD_SCHEMAS["ScaledObject"])
    # The operator's CRD takes `for` as a duration string, as Prometheus does.
    rule = copy.deepcopy(next(iter(objects(renders, "PrometheusRule").values())))
    rule["spec"]["groups"][0]["rules"][0]["for"] = 600
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(rule, CRD_SCHEMAS["PrometheusRule"])


# The alert rules: one source, deploy/alerts.yml


def test_prometheus_rule_is_the_one_tools_prometheusrule_writes_from_alerts_yml():
    from tools import prometheusrule

    assert not prometheusrule.stale(), "run `python -m tools.prometheusrule` and commit its output"
    assert prometheusrule.TARGET.parent == KUBE / "components" / "prometheus-operator"


def test_prometheus_rule_carries_the_groups_of_alerts_yml(renders, tmp_path):
    alerts = yaml.safe_load((ROOT / "deploy" / "alerts.yml").read_text())
    assert list(alerts) == ["groups"]
    for label in ("example+prometheus-operator", "example+all"):
        (rule,) = objects(renders, "PrometheusRule", label).values()
        assert rule["spec"]["groups"] == alerts["groups"], label
    assert not objects(renders, "PrometheusRule", "example"), "the rules come with the component only"
    # What the operator hands Prometheus is a valid rules file.
    promtool = shutil.which("promtool")
    if promtool:
        spec = tmp_path / "rules.yml"
        spec.write_text(yaml.safe_dump(rule["spec"]))
        done = subprocess.run([promtool, "check", "rules", str(spec)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_rules_generator_keeps_block_scalars_and_refuses_other_top_level_keys():
    from tools import prometheusrule

    rules = "# header\ngroups:\n  - name: g\n    rules:\n      - alert: A\n        expr: |\n          up\n\n          == 0\n"
    made = yaml.safe_load(prometheusrule.render(rules))
    assert made["kind"] == "PrometheusRule" and made["spec"] == yaml.safe_load(rules)
    with pytest.raises(ValueError):
        prometheusrule.render(rules + "other: 1\n")
    with pytest.raises(ValueError):
        prometheusrule.render("rules: []\n")


# The arena's own settings, read from the rendered environment


def test_every_component_runs_its_arena_command(renders):
    from arena.cli import build_parser

    for label, docs in renders.items():
        seen = set()
        for _, template, container in containers(docs):
            name = component(template)
            command = [*container.get("command", []), *container.get("args", [])]
            assert command[0] == "arena", f"{label}/{name}: {command}"
            assert command[1:len(COMPONENT_COMMAND[name]) + 1] == COMPONENT_COMMAND[name], f"{label}/{name}: {command}"
            args = build_parser().parse_args(command[1:])  # exits (fails) on an option arena lacks
            assert callable(args.func)
            if name == "worker":
                # One pool process per core of the limit: house-bot matches are CPU bound.
                assert args.concurrency <= cores(container["resources"]["limits"]["cpu"])
            # The live worker consumes the live queue; the prefork workers the house-bot batches.
            assert args.func.__module__ != "arena.cli.worker_cmd" or args.live == (name == "live-worker"), label
            seen.add(name)
        assert seen == set(COMPONENT_COMMAND), label


def test_the_arena_reads_its_urls_from_the_charts_services_and_the_secrets(renders, monkeypatch):
    from arena.settings import load

    postgres, redis = chart_values("postgresql"), chart_values("redis")
    assert redis["architecture"] == "standalone"  # the chart's Service is then <fullname>-master
    for label, docs in renders.items():
        for _, template, container in containers(docs):
            env = environment(docs, container)
            assert not [value for value in env.values() if "$(" in value], f"{label}: a variable used before it is set"
            for name in list(os.environ):
                if name.startswith("ARENA_"):
                    monkeypatch.delenv(name)
            for name, value in env.items():
                monkeypatch.setenv(name, value)
            config = load()
            database = urlsplit(config.database_url)
            assert database.scheme == "postgresql"
            assert (database.hostname, database.port) == (postgres["fullnameOverride"], 5432)
            assert (database.username, database.path) == (postgres["auth"]["username"], "/" + postgres["auth"]["database"])
            assert database.password == FAKE_SECRETS[("arena-postgresql", "password")]
            if component(template) == "migrate":
                continue  # migrations need the database only
            assert config.redis_url, f"{label}/{component(template)} would run embedded"
            broker = urlsplit(config.redis_url)
            assert (broker.hostname, broker.port) == (f"{redis['fullnameOverride']}-master", 6379)
            assert broker.password == FAKE_SECRETS[("arena-redis", "redis-password")]


def test_secrets_are_referenced_never_inlined(renders):
    for label, docs in renders.items():
        assert not [doc for doc in docs if doc["kind"] == "Secret"], f"{label} carries a Secret"
        for doc in docs:
            if doc["kind"] == "ConfigMap":
                assert not [key for key in doc["data"] if SECRETISH.search(key)], f"{label}: a secret in a ConfigMap"
        for _, _, container in containers(docs):
            for variable in container.get("env", []):
                value = variable.get("value", "")
                if SECRETISH.search(variable["name"]):
                    assert "secretKeyRef" in variable.get("valueFrom", {}), f"{label}: {variable['name']} inlined"
                # A URL's password is a reference to a secret-fed variable, never a literal.
                password = urlsplit(value).password if "://" in value else None
                if password is not None:
                    assert re.fullmatch(r"\$\(\w*PASSWORD\)", password), f"{label}: {variable['name']} = {value}"


def test_every_secret_referenced_is_one_the_readme_creates_with_generated_values(renders):
    commands = readme_commands()
    created: set[tuple[str, str]] = set()
    for line in re.findall(r"kubectl create secret generic [^\n]+", commands):
        name = re.search(r"generic (\S+)", line)[1]
        for key, value in re.findall(r"--from-literal=([\w.-]+)=(\S+)", line):
            assert value.startswith('"$(') or value.startswith("$("), f"README holds a value for {name}/{key}"
            created.add((name, key))
    referenced = set()
    for docs in renders.values():
        for _, _, container in containers(docs):
            for variable in container.get("env", []):
                ref = variable.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    referenced.add((ref["name"], ref["key"]))
        for doc in docs:
            if doc["kind"] == "TriggerAuthentication":
                referenced |= {(ref["name"], ref["key"]) for ref in doc["spec"]["secretTargetRef"]}
    assert referenced == set(FAKE_SECRETS)
    assert referenced <= created
    # The charts read their passwords from those same secrets.
    postgres, redis = chart_values("postgresql")["auth"], chart_values("redis")["auth"]
    assert {(postgres["existingSecret"], postgres["secretKeys"]["userPasswordKey"]),
            (postgres["existingSecret"], postgres["secretKeys"]["adminPasswordKey"]),
            (redis["existingSecret"], redis["existingSecretPasswordKey"])} <= created
    assert (postgres["existingSecret"], postgres["secretKeys"]["userPasswordKey"]) == ("arena-postgresql", "password")
    assert (redis["existingSecret"], redis["existingSecretPasswordKey"]) == ("arena-redis", "redis-password")
    assert "kubectl create secret tls arena-tls" in commands


def test_redis_chart_keeps_the_queue_through_restarts_and_never_evicts_it():
    config = chart_values("redis")["commonConfiguration"].splitlines()
    assert "appendonly yes" in config and "maxmemory-policy noeviction" in config
    assert chart_values("redis")["master"]["persistence"]["enabled"] is True
    assert chart_values("postgresql")["primary"]["persistence"]["enabled"] is True


# Pods: images, resources, security


def test_every_container_runs_the_one_arena_image(renders):
    overlay = yaml.safe_load((KUBE / "overlays" / "example" / "kustomization.yaml").read_text())
    (image,) = overlay["images"]
    expected = {"base": "arena"} | {label: f"{image['newName']}:{image['newTag']}" for label in renders if label != "base"}
    for label, docs in renders.items():
        assert {container["image"] for _, _, container in containers(docs)} == {expected[label]}, label


def test_every_container_has_bounded_requests_and_limits(renders):
    for _, template, container in containers(renders["example+all"]):
        resources = container["resources"]
        name = component(template)
        assert cores(resources["requests"]["cpu"]) <= cores(resources["limits"]["cpu"]), name
        assert mebibytes(resources["requests"]["memory"]) <= mebibytes(resources["limits"]["memory"]), name


def test_every_pod_meets_the_restricted_pod_security_standard(renders):
    for label, docs in renders.items():
        for _, template in pods(docs):
            spec, name = template["spec"], f"{label}/{component(template)}"
            pod = spec["securityContext"]
            assert pod["runAsNonRoot"] is True and pod["runAsUser"] > 0 and pod["runAsGroup"] > 0, name
            assert pod["seccompProfile"]["type"] == "RuntimeDefault", name
            # No pod talks to the Kubernetes API, and Service links would put variables named
            # after Services (ARENA_REDIS_MASTER_PORT=tcp://...) among the arena's settings.
            assert spec["automountServiceAccountToken"] is False and spec["enableServiceLinks"] is False, name
            for container in spec["containers"]:
                context = container["securityContext"]
                assert context["allowPrivilegeEscalation"] is False, name
                assert context["readOnlyRootFilesystem"] is True, name
                assert context["capabilities"]["drop"] == ["ALL"] and "add" not in context["capabilities"], name
                assert "runAsUser" not in context or context["runAsUser"] > 0, name


def test_containers_write_only_to_empty_dirs_and_metrics_go_to_one(renders):
    for label, docs in renders.items():
        for _, template, container in containers(docs):
            volumes = {volume["name"]: volume for volume in template["spec"]["volumes"]}
            mounts = {mount["mountPath"]: volumes[mount["name"]] for mount in container["volumeMounts"]}
            writable = [path for path, volume in mounts.items() if "emptyDir" not in volume]
            for mount in container["volumeMounts"]:
                if mount["mountPath"] in writable:
                    assert mount.get("readOnly") is True, f"{label}: {mount} is writable and not an emptyDir"
            for volume in mounts.values():
                if "emptyDir" in volume:
                    assert volume["emptyDir"].get("sizeLimit"), f"{label}: {volume['name']} unbounded"
            # prometheus_client writes as soon as the arena is imported (the image sets the folder),
            # and a worker's pool processes all write there.
            folder = environment(docs, container)["PROMETHEUS_MULTIPROC_DIR"]
            assert "emptyDir" in mounts.get(folder, {}), f"{label}/{component(template)}: {folder} is not an emptyDir"
            assert "emptyDir" in mounts.get("/tmp", {}), f"{label}/{component(template)}: no writable /tmp"


# Ports, probes, metrics


def container_port(container: dict[str, Any], name: str) -> int:
    (port,) = [port["containerPort"] for port in container["ports"] if port["name"] == name]
    return port


def workload(docs, name) -> tuple[dict[str, Any], dict[str, Any]]:
    (found,) = [(template, container) for _, template, container in containers(docs) if component(template) == name]
    return found


def test_referee_answers_grpc_health_on_the_settings_port_and_stops_gracefully(renders):
    from arena.server.settings import ServerSettings
    from arena.settings import load

    for label, docs in renders.items():
        template, container = workload(docs, "referee")
        settings = ServerSettings.from_settings(load(environment(docs, container)))
        port = int(settings.address.rsplit(":", 1)[1])
        assert settings.address.startswith("0.0.0.0:"), "the Service reaches the pod's address, not its loopback"
        assert container_port(container, "grpc") == port
        assert settings.admin_token == FAKE_SECRETS[("arena-admin", "token")]
        tls = settings.tls_cert is not None
        for probe in (container["readinessProbe"], container["livenessProbe"]):
            if tls:  # the kubelet's gRPC probe speaks plaintext only
                assert probe["tcpSocket"]["port"] in ("grpc", port) and "grpc" not in probe, label
            else:
                assert probe["grpc"] == {"port": port}, label
        # Endpoints drop the pod during the preStop pause, then health turns NOT_SERVING and calls
        # in flight get the server's grace; all of it inside the termination grace period.
        pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        assert pause + settings.shutdown_grace_seconds < template["spec"]["terminationGracePeriodSeconds"], label
        if tls:
            mounts = {mount["mountPath"]: mount for mount in container["volumeMounts"]}
            folder = str(Path(settings.tls_cert).parent)
            assert folder == str(Path(settings.tls_key).parent) and mounts[folder]["readOnly"] is True
        assert label != "example+all" or tls, "the TLS component did not reach the referee"


def test_web_listens_where_its_service_and_probes_point(renders, monkeypatch):
    from arena.settings import load
    from arena.web.settings import WebSettings

    for label, docs in renders.items():
        _, container = workload(docs, "web")
        for key, value in environment(docs, container).items():
            monkeypatch.setenv(key, value)
        settings = WebSettings.from_settings(load())
        assert settings.host == "0.0.0.0", f"{label}: the Service reaches the pod's address, not its loopback"
        port = settings.port
        assert container_port(container, "http") == port
        for probe in (container["readinessProbe"], container["livenessProbe"]):
            assert probe["httpGet"]["port"] in ("http", port) and probe["httpGet"]["path"].startswith("/api/v1/")


def test_metrics_listen_on_the_pod_where_the_annotations_and_pod_monitors_look(renders, monkeypatch):
    from arena.settings import load

    docs = renders["example+all"]
    monitors = objects(renders, "PodMonitor")
    for name in ("worker", "live-worker", "referee"):
        template, container = workload(docs, name)
        env = environment(docs, container)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        if name != "referee":
            port, address = load().metrics_port, load().metrics_address
        else:
            port, address = load().gateway_metrics_port, load().gateway_metrics_address
        assert address == "0.0.0.0", f"{name}: metrics on loopback cannot be scraped"
        assert container_port(container, "metrics") == port
        annotations = template["metadata"]["annotations"]
        assert (annotations["prometheus.io/scrape"], annotations["prometheus.io/port"]) == ("true", str(port))
        (monitor,) = [m for m in monitors.values()
                      if m["spec"]["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()]
        assert [endpoint["port"] for endpoint in monitor["spec"]["podMetricsEndpoints"]] == ["metrics"]


def test_services_select_their_pods_and_publish_no_metrics(renders):
    for label, docs in renders.items():
        templates = [template for _, template in pods(docs)]
        for service in (doc for doc in docs if doc["kind"] == "Service"):
            selected = [t for t in templates if service["spec"]["selector"].items() <= t["metadata"]["labels"].items()]
            assert selected, f"{label}: Service {service['metadata']['name']} selects no pod"
            names = {port["name"] for t in selected for c in t["spec"]["containers"] for port in c["ports"]}
            for port in service["spec"]["ports"]:
                assert port["targetPort"] in names and port["targetPort"] != "metrics", f"{label}: {port}"
            public = service["spec"].get("type", "ClusterIP") != "ClusterIP"
            if public:  # only gRPC leaves the cluster, and with the bots' own addresses
                assert [port["port"] for port in service["spec"]["ports"]] == [50051], label
                assert service["spec"]["externalTrafficPolicy"] == "Local", label
    assert objects(renders, "Service", "example+grpc-loadbalancer")["arena-referee-public"]["spec"]["type"] == "LoadBalancer"


# Availability, scaling, order


def test_every_deployment_has_a_disruption_budget_that_lets_a_node_drain(renders):
    for label, docs in renders.items():
        budgets = [doc for doc in docs if doc["kind"] == "PodDisruptionBudget"]
        for deployment in (doc for doc in docs if doc["kind"] == "Deployment"):
            labels = deployment["spec"]["template"]["metadata"]["labels"]
            (budget,) = [b for b in budgets if b["spec"]["selector"]["matchLabels"].items() <= labels.items()]
            replicas = deployment["spec"].get("replicas")
            if "minAvailable" in budget["spec"] and replicas is not None:
                assert budget["spec"]["minAvailable"] < replicas, f"{label}: {deployment['metadata']['name']}"
            else:
                assert budget["spec"].get("maxUnavailable", 0) >= 1, f"{label}: {deployment['metadata']['name']}"


def test_keda_scales_the_workers_by_the_celery_queue_with_the_arena_redis_password(renders):
    docs = renders["example+keda"]
    workers = objects(renders, "Deployment", "example+keda")["arena-worker"]
    assert "replicas" not in workers["spec"], "a fixed count would fight KEDA's autoscaler on every apply"
    assert objects(renders, "Deployment", "example")["arena-worker"]["spec"]["replicas"] >= 1
    scaled = objects(renders, "ScaledObject", "example+keda")["arena-worker"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == workers["metadata"]["name"]
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]
    (trigger,) = scaled["spec"]["triggers"]
    _, container = workload(docs, "worker")
    env = environment(docs, container)
    assert trigger["type"] == "redis"
    assert trigger["metadata"]["listName"] == env["ARENA_QUEUE"]
    assert trigger["metadata"]["address"] == f"{env['ARENA_REDIS_HOST']}:{env['ARENA_REDIS_PORT']}"
    assert trigger["metadata"].get("databaseIndex", "0") == urlsplit(env["ARENA_REDIS_URL"]).path.strip("/")
    assert int(trigger["metadata"]["listLength"]) >= 1
    authentication = objects(renders, "TriggerAuthentication", "example+keda")[trigger["authenticationRef"]["name"]]
    (password,) = [ref for ref in authentication["spec"]["secretTargetRef"] if ref["parameter"] == "password"]
    (worker_password,) = [v["valueFrom"]["secretKeyRef"] for v in container["env"] if v["name"] == "ARENA_REDIS_PASSWORD"]
    assert (password["name"], password["key"]) == (worker_password["name"], worker_password["key"])


def test_keda_scales_the_live_workers_by_the_live_queue(renders):
    docs = renders["example+keda"]
    live = objects(renders, "Deployment", "example+keda")["arena-live-worker"]
    assert "replicas" not in live["spec"], "a fixed count would fight KEDA's autoscaler on every apply"
    scaled = objects(renders, "ScaledObject", "example+keda")["arena-live-worker"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == live["metadata"]["name"]
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]
    (trigger,) = scaled["spec"]["triggers"]
    _, container = workload(docs, "live-worker")
    env = environment(docs, container)
    assert trigger["type"] == "redis" and trigger["metadata"]["listName"] == env["ARENA_LIVE_QUEUE"]
    assert trigger["metadata"]["address"] == f"{env['ARENA_REDIS_HOST']}:{env['ARENA_REDIS_PORT']}"
    assert trigger["authenticationRef"]["name"] in objects(renders, "TriggerAuthentication", "example+keda")
    # Scaling down stops a live worker mid-matches (a warm shutdown of up to its grace period):
    # the autoscaler waits at least as long before it removes one.
    behavior = scaled["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
    grace = live["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert behavior["scaleDown"]["stabilizationWindowSeconds"] >= grace
    # Without the component the count is the Deployment's own.
    assert objects(renders, "ScaledObject", "example") == {}
    assert objects(renders, "Deployment", "example")["arena-live-worker"]["spec"]["replicas"] >= 1


def test_redis_admits_every_live_match_the_live_workers_may_hold(renders):
    # Each live match waiting for a move holds a Redis connection (the mailbox).
    config = dict(line.split(None, 1) for line in chart_values("redis")["commonConfiguration"].splitlines())
    maxclients = int(config.get("maxclients", 10000))
    docs = renders["example+keda"]
    env = config_map(docs, workload(docs, "live-worker")[1]["envFrom"][0]["configMapRef"]["name"])
    most = max([objects(renders, "Deployment", "example")["arena-live-worker"]["spec"]["replicas"],
                objects(renders, "ScaledObject", "example+keda")["arena-live-worker"]["spec"]["maxReplicaCount"]])
    assert most * int(env["ARENA_LIVE_MATCHES"]) + 200 <= maxclients


def test_live_workers_play_the_live_queue_with_memory_for_hundreds_of_matches(renders, monkeypatch):
    from arena.settings import load

    for label, docs in renders.items():
        template, container = workload(docs, "live-worker")
        env = environment(docs, container)
        for name in list(os.environ):
            if name.startswith("ARENA_"):
                monkeypatch.delenv(name)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        config = load()
        assert config.live_queue and config.live_queue != config.queue, label
        assert config.live_matches >= 100, label
        # Every arena container reads the same ConfigMap: the dispatcher (any CLI, the referee)
        # sends live matches where the live workers listen, and every supervisor sweeps there.
        for _, _, other in containers(docs):
            assert environment(docs, other).get("ARENA_LIVE_QUEUE") == config.live_queue, label
        # Mostly memory, little CPU: one event loop uses one core at most.
        resources = container["resources"]
        _, worker = workload(docs, "worker")
        assert cores(resources["limits"]["cpu"]) <= 1, label
        assert cores(resources["requests"]["cpu"]) < cores(worker["resources"]["requests"]["cpu"]), label
        assert mebibytes(resources["requests"]["memory"]) >= 1024, label
        assert mebibytes(resources["requests"]["memory"]) > mebibytes(worker["resources"]["requests"]["memory"])
        # A warm shutdown finishes the matches in play: as long as the longest match may last.
        grace = template["spec"]["terminationGracePeriodSeconds"]
        assert grace >= config.task_time_limit, label
        _, worker_template = [(w, t) for w, t in pods(docs) if component(t) == "worker"][0]
        assert grace > worker_template["spec"]["terminationGracePeriodSeconds"], label
        # New pods first: an old one may take its whole grace period to stop.
        (deployment,) = [w for w, t in pods(docs) if component(t) == "live-worker"]
        assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0, label
        # Drains take one at a time.
        (budget,) = [b for b in docs if b["kind"] == "PodDisruptionBudget"
                     and b["spec"]["selector"]["matchLabels"].items() <= template["metadata"]["labels"].items()]
        assert budget["spec"]["maxUnavailable"] == 1, label
        assert not [s for s in docs if s["kind"] == "Service"
                    and s["spec"]["selector"].items() <= template["metadata"]["labels"].items()], "no Service"


def test_two_referees_behind_the_service_balanced_per_connection(renders):
    for label, docs in renders.items():
        referee = {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == "Deployment"}["arena-referee"]
        assert referee["spec"]["replicas"] >= 2, label
        labels = referee["spec"]["template"]["metadata"]["labels"]
        services = [s for s in docs if s["kind"] == "Service" and s["spec"]["selector"].items() <= labels.items()]
        assert "arena-referee" in {s["metadata"]["name"] for s in services}, label
        for service in services:
            # Per connection, no client affinity: a bot's reconnection may land on either referee.
            assert service["spec"].get("sessionAffinity", "None") == "None", label
            assert [p["port"] for p in service["spec"]["ports"]] == [50051], label
        (budget,) = [b for b in docs if b["kind"] == "PodDisruptionBudget"
                     and b["spec"]["selector"]["matchLabels"].items() <= labels.items()]
        assert budget["spec"]["minAvailable"] >= 1, label
        assert referee["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0, label


def selector_matches(selector: str, labels: dict[str, str]) -> bool:
    """``key=value`` or ``key in (a,b)`` terms joined by commas outside parentheses."""
    for term in re.findall(r"[^,(]+(?:\([^)]*\))?", selector):
        term = term.strip()
        if found := re.fullmatch(r"(\S+)\s+in\s+\(([^)]*)\)", term):
            if labels.get(found[1]) not in [value.strip() for value in found[2].split(",")]:
                return False
        else:
            key, value = term.split("=", 1)
            if labels.get(key.strip()) != value.strip():
                return False
    return True


def test_the_readme_migrates_before_anything_else_starts(renders):
    docs = renders["example"]
    first = re.search(r"kubectl apply -k (\S+) -l '([^']+)'", readme_commands())
    assert first, "the README applies the migration step by a label selector"
    chosen = {(doc["kind"], doc["metadata"]["name"]) for doc in docs
              if selector_matches(first[2], doc["metadata"].get("labels", {}))}
    (config,) = [name for kind, name in chosen if kind == "ConfigMap"]
    assert chosen == {("Job", "arena-migrate"), ("ConfigMap", config)}, chosen
    _, job = workload(docs, "migrate")
    assert config in [source["configMapRef"]["name"] for source in job["envFrom"]]
    assert "kubectl wait --for=condition=complete" in readme_commands()
    (spec,) = [doc["spec"] for doc in docs if doc["kind"] == "Job"]
    assert spec["template"]["spec"]["restartPolicy"] == "Never" and spec["backoffLimit"] <= 6
    assert spec.get("activeDeadlineSeconds"), "a migration that hangs must end"


def test_deploy_readme_links_here():
    assert "kubernetes/README.md" in (ROOT / "deploy" / "README.md").read_text()
