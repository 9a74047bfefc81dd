"""Deployment files: the Prometheus config passes ``promtool check config``, the dashboard
is valid JSON on metrics the arena exports, ``arena db`` migrates, and the compose file is
safe on a machine the internet can reach: only gRPC (on the load balancer) and Grafana
published, every secret from the environment with no default, Redis refusing clients without
its password. The live worker and the referees' load balancer: every arena service on the
live queue, the balancer passing TCP through to every referee, all of them scraped."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from arena import metrics
from arena.cli import main
from arena.store import db
from tests.helpers import ROOT, wait_until
from tests.support.services import free_port, redis_answers, redis_server_binary

DEPLOY = ROOT / "deploy"
SECRETS = {"ARENA_REDIS_PASSWORD": "redis0secret", "ARENA_POSTGRES_PASSWORD": "postgres0secret",
           "GRAFANA_ADMIN_PASSWORD": "grafana0secret", "ARENA_ADMIN_TOKEN": "admin0token0for0the0arena0deploy0tests0k"}
# Compose's interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default},
# ${NAME:?error} (unset or empty is an error), ${NAME?error} (unset is an error).
VARIABLE = re.compile(r"\$(?:(?P<dollar>\$)|\{(?P<name>\w+)(?:(?P<colon>:?)(?P<op>[-?])(?P<arg>[^}]*))?\}|(?P<bare>\w+))")


class RequiredVariable(LookupError):
    """A ``${NAME:?...}`` that the environment does not fill: compose refuses to start."""


def substitute(text: str, env: dict[str, str]) -> str:
    def one(found: re.Match[str]) -> str:
        if found["dollar"]:
            return "$"
        name = found["name"] or found["bare"]
        value = env.get(name)
        missing = value is None or (bool(found["colon"]) and value == "")
        if missing and found["op"] == "?":
            raise RequiredVariable(name)
        if missing and found["op"] == "-":
            return found["arg"]
        return value or ""

    return VARIABLE.sub(one, text)


def interpolated(node: Any, env: dict[str, str]) -> Any:
    if isinstance(node, dict):
        return {key: interpolated(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [interpolated(value, env) for value in node]
    return substitute(node, env) if isinstance(node, str) else node


def compose_file(env: dict[str, str], name: str = "compose.yaml") -> dict[str, Any]:
    """A compose file of ``deploy/`` as compose reads it with the environment ``env``."""
    yaml = pytest.importorskip("yaml", reason="PyYAML not installed (pip install -e '.[dev]')")
    return interpolated(yaml.safe_load((DEPLOY / name).read_text()), env)


def environment(service: dict[str, Any]) -> dict[str, str]:
    found = service.get("environment", {})
    return dict(item.split("=", 1) for item in found) if isinstance(found, list) else found


def published(service: dict[str, Any]) -> list[tuple[str, str]]:
    """``(host address, host port)`` of every port the service publishes on the host."""
    ports = []
    for entry in service.get("ports", []):
        if isinstance(entry, dict):
            ports.append((entry.get("host_ip", "0.0.0.0"), str(entry.get("published", "any"))))
            continue
        parts = str(entry).split("/")[0].rsplit(":", 2)
        if len(parts) == 3:
            ports.append((parts[0].strip("[]"), parts[1]))
        else:  # "PORT:PORT", or a bare container port published on a random host port
            ports.append(("0.0.0.0", parts[0] if len(parts) == 2 else "any"))
    return ports


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (Debian package 'prometheus')")
def test_prometheus_config_is_valid():
    done = subprocess.run(["promtool", "check", "config", "--syntax-only", str(ROOT / "deploy/prometheus.yml")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


def test_dashboard_queries_name_exported_metrics():
    dashboard = json.loads((ROOT / "deploy/grafana/arena.json").read_text())
    exported = {m._name for m in (metrics.MATCHES, metrics.MATCH_SECONDS, metrics.DECISIONS,
                                  metrics.DECISION_SECONDS, metrics.FAULTS, metrics.FORFEITS, metrics.TASK_RETRIES,
                                  metrics.MATCH_FAILURES, metrics.OUTAGE_SECONDS, metrics.RESENT,
                                  metrics.SUPERVISOR_SWEEPS, metrics.HEALING_CPU,
                                  # ``arena serve``'s own (the arena-referee job scrapes it)
                                  metrics.LADDER_PASSES, metrics.LADDER_SCHEDULED, metrics.LADDER_CPU)}
    exported.add("arena_queue_depth")
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            for name in re.findall(r"arena_[a-z_]+", target["expr"]):
                base = re.sub(r"_(total|bucket|sum|count)$", "", name)
                assert base in exported, f"{panel['title']}: {name} is not exported"


def test_db_upgrade_and_current(tmp_path, monkeypatch, capsys):
    store = tmp_path / "not-yet" / "arena.db"
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{store}")
    assert main(["db", "current"]) == 1
    assert not store.parent.exists()  # asking makes nothing: no file, no directory
    assert "no database at" in capsys.readouterr().out
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "current"]) == 0
    assert f"revision {db.head_revision()}" in capsys.readouterr().out


def test_compose_publishes_only_grpc_and_grafana():
    services = compose_file(SECRETS)["services"]
    public = {("grpc-lb", "50051"), ("grafana", "3000")}
    for name, service in services.items():
        for host, port in published(service):
            # Prometheus has no login of its own: this machine only, if at all.
            allowed = (name, port) in public or (name == "prometheus" and loopback(host))
            assert allowed, f"{name} publishes {host}:{port} on the host"
    assert ("0.0.0.0", "50051") in published(services["grpc-lb"]), "bots must still reach the gRPC port"
    # The referees are reached through the load balancer only (and a published port would
    # clash between replicas).
    assert not published(services["referee"])
    assert not published(services["redis"]) and not published(services["postgres"])


@pytest.mark.parametrize("secret", sorted(SECRETS))
@pytest.mark.parametrize("value", [None, ""], ids=["unset", "empty"])
def test_compose_refuses_to_start_without_a_secret(secret, value):
    env = {k: v for k, v in SECRETS.items() if k != secret}
    if value is not None:
        env[secret] = value
    with pytest.raises(RequiredVariable, match=secret):
        compose_file(env)


def test_redis_and_postgres_take_their_passwords_from_the_environment():
    services = compose_file(SECRETS)["services"]
    command = services["redis"]["command"]
    assert command[command.index("--requirepass") + 1] == SECRETS["ARENA_REDIS_PASSWORD"]
    assert environment(services["postgres"])["POSTGRES_PASSWORD"] == SECRETS["ARENA_POSTGRES_PASSWORD"]
    arena_services = [name for name, service in services.items() if "build" in service]
    assert {"migrate", "worker", "referee"} <= set(arena_services)
    for name in arena_services:
        env = environment(services[name])
        if name != "migrate":  # migrations need only the database
            assert urlsplit(env["ARENA_REDIS_URL"]).password == SECRETS["ARENA_REDIS_PASSWORD"], name
        assert urlsplit(env["ARENA_DATABASE_URL"]).password == SECRETS["ARENA_POSTGRES_PASSWORD"], name


def test_grafana_has_no_anonymous_admin_and_a_password_from_the_environment():
    env = environment(compose_file(SECRETS)["services"]["grafana"])
    if env.get("GF_AUTH_ANONYMOUS_ENABLED", "false").lower() == "true":
        assert env.get("GF_AUTH_ANONYMOUS_ORG_ROLE", "Viewer") == "Viewer"
    assert env["GF_SECURITY_ADMIN_PASSWORD"] == SECRETS["GRAFANA_ADMIN_PASSWORD"]


def healthcheck(service: dict[str, Any], cli: str, port: int, env: dict[str, str]) -> int:
    """Exit status of the service's healthcheck against a Redis on ``port`` of this machine."""
    test = service["healthcheck"]["test"]
    full = {"PATH": os.environ["PATH"], **env}
    if test[0] == "CMD-SHELL":
        command = test[1].replace("redis-cli", f"{cli} -p {port}")
        return subprocess.run(["sh", "-c", command], env=full, capture_output=True, timeout=10).returncode
    argv = [part for word in test[1:] for part in ([cli, "-p", str(port)] if word == "redis-cli" else [word])]
    return subprocess.run(argv, env=full, capture_output=True, timeout=10).returncode


def test_compose_redis_refuses_clients_without_the_password_and_its_healthcheck_uses_it(tmp_path):
    import redis

    services = compose_file(SECRETS)["services"]
    server = redis_server_binary()
    cli = shutil.which("redis-cli") or str(Path(server).with_name("redis-cli"))
    port = free_port()
    # The compose service's own arguments, on a private port and directory of this test.
    argv = [server, *services["redis"]["command"][1:], "--port", str(port), "--bind", "127.0.0.1",
            "--dir", str(tmp_path)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = urlsplit(environment(services["worker"])["ARENA_REDIS_URL"])
        client = redis.Redis(host="127.0.0.1", port=port, password=url.password, socket_connect_timeout=1)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        wait_until(answers, timeout=10, what="the compose Redis with its password")
        assert not redis_answers("127.0.0.1", port), "Redis answered a client without the password"
        redis_env = environment(services["redis"])
        assert healthcheck(services["redis"], cli, port, redis_env) == 0
        assert healthcheck(services["redis"], cli, port, {**redis_env, "REDISCLI_AUTH": "wrong"}) != 0
        assert healthcheck(services["redis"], cli, port, {}) != 0
    finally:
        process.kill()
        process.wait(5)


def test_private_override_offers_redis_and_postgres_on_one_address_only():
    services = compose_file({"ARENA_PRIVATE_ADDRESS": "10.1.2.3"}, "compose.private.yaml")["services"]
    assert {name: published(service) for name, service in services.items()} == {
        "redis": [("10.1.2.3", "6379")], "postgres": [("10.1.2.3", "5432")]}
    with pytest.raises(RequiredVariable, match="ARENA_PRIVATE_ADDRESS"):
        compose_file({}, "compose.private.yaml")


def test_tls_override_gives_the_referee_a_certificate_read_only():
    referee = compose_file({"ARENA_TLS_DIR": "/etc/arena/tls"}, "compose.tls.yaml")["services"]["referee"]
    env = environment(referee)
    (mount,) = referee["volumes"]
    source, target, mode = mount.split(":")
    assert (source, mode) == ("/etc/arena/tls", "ro")
    assert {env["ARENA_TLS_CERT"], env["ARENA_TLS_KEY"]} == {f"{target}/cert.pem", f"{target}/key.pem"}
    with pytest.raises(RequiredVariable, match="ARENA_TLS_DIR"):
        compose_file({}, "compose.tls.yaml")


def test_env_example_names_every_variable_compose_requires_and_holds_no_secret():
    required = {name for file in ("compose.yaml", "compose.private.yaml", "compose.tls.yaml")
                for name in re.findall(r"\$\{(\w+):\?", (DEPLOY / file).read_text())}
    example = dict(line.split("=", 1) for line in (DEPLOY / ".env.example").read_text().splitlines()
                   if line.strip() and not line.startswith("#"))
    assert required <= set(example)
    # Empty: a copy nobody filled in makes compose refuse to start, not run with guessable passwords.
    assert all(value == "" for value in example.values()), example
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "deploy/.env"], timeout=10)
    assert ignored.returncode == 0, "deploy/.env (real secrets) must be ignored by git"


# The live worker and the referees behind one load balancer


def arena_services(services: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the arena's image (built from deploy/Dockerfile)."""
    return {name: service for name, service in services.items() if "build" in service}


def replicas(service: dict[str, Any]) -> int:
    return int(service.get("deploy", {}).get("replicas", 1))


def command_args(service: dict[str, Any]) -> Any:
    from arena.cli import build_parser

    command = service["command"]
    assert command[0] == "arena", command
    return build_parser().parse_args(command[1:])  # exits (fails) on an option arena lacks


def test_compose_runs_a_live_worker_on_the_live_queue_of_every_arena_service():
    services = compose_file(SECRETS)["services"]
    live = services["live-worker"]
    args = command_args(live)
    assert live["command"][1] == "worker" and args.live is True
    assert args.concurrency is None, "its matches at once come from ARENA_LIVE_MATCHES, shared by all"
    assert "--live" not in services["worker"]["command"], "house-bot batches stay on the prefork workers"
    queues = set()
    for name, service in arena_services(services).items():
        env = environment(service)
        # Every service agrees: the dispatcher (any CLI or referee) sends live matches there,
        # the live worker consumes it, and every supervisor sweeps it.
        assert env.get("ARENA_LIVE_QUEUE"), f"{name}: ARENA_LIVE_QUEUE unset"
        assert env["ARENA_LIVE_QUEUE"] != env["ARENA_QUEUE"], name
        queues.add((env["ARENA_QUEUE"], env["ARENA_LIVE_QUEUE"]))
    assert len(queues) == 1, queues
    env = environment(live)
    assert int(env["ARENA_LIVE_MATCHES"]) >= 100
    assert env["ARENA_METRICS_PORT"] == environment(services["worker"])["ARENA_METRICS_PORT"]
    assert env["ARENA_METRICS_ADDRESS"] == "0.0.0.0"
    assert live["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    # Warm shutdown of hundreds of matches: longer than a prefork worker's, up to the longest match.
    grace = int(live["stop_grace_period"].rstrip("s"))
    assert grace >= int(env["ARENA_TASK_TIME_LIMIT"])
    assert int(live["ulimits"]["nofile"]["soft"]) > int(env["ARENA_LIVE_MATCHES"]) * 2


def test_redis_admits_the_live_matches_of_the_live_worker():
    services = compose_file(SECRETS)["services"]
    command = services["redis"]["command"]
    maxclients = int(command[command.index("--maxclients") + 1])
    # One connection per live match waiting for a move, plus a few per arena process.
    live = sum(replicas(s) * int(environment(s)["ARENA_LIVE_MATCHES"]) for name, s in services.items()
               if name == "live-worker")
    assert live + 100 <= maxclients
    assert int(services["redis"]["ulimits"]["nofile"]["soft"]) > maxclients + 32


def haproxy_config() -> dict[str, list[list[str]]]:
    """``deploy/haproxy.cfg`` as {section header: its lines split into words}, comments dropped."""
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for raw in (DEPLOY / "haproxy.cfg").read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not raw[0].isspace():
            current = sections.setdefault(line.strip(), [])
        else:
            current.append(line.split())
    return sections


def test_the_load_balancer_passes_tcp_through_to_every_referee():
    services = compose_file(SECRETS)["services"]
    balancer, referee = services["grpc-lb"], services["referee"]
    assert "build" not in balancer and balancer["image"].startswith("haproxy:")
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in balancer["volumes"]
    assert replicas(referee) == 2 and "container_name" not in referee
    assert "referee" in balancer["depends_on"]
    grpc_port = environment(referee)["ARENA_GRPC_ADDRESS"].rsplit(":", 1)[1]

    config = haproxy_config()
    # TCP mode everywhere: TLS and HTTP/2 streams go through untouched.
    assert ["mode", "tcp"] in config["defaults"]
    assert not [line for lines in config.values() for line in lines if line[:2] == ["mode", "http"]]
    (frontend,) = [name for name in config if name.startswith("frontend ")]
    (bind,) = [line for line in config[frontend] if line[0] == "bind"]
    assert bind[1].rsplit(":", 1)[1] == "50051" and len(bind) == 2, "no TLS or ALPN ending at the balancer"
    (backend_name,) = [line[1] for line in config[frontend] if line[0] == "default_backend"]
    backend = config[f"backend {backend_name}"]
    # Every referee replica, found through compose's DNS, on its gRPC port, health-checked there.
    (template,) = [line for line in backend if line[0] == "server-template"]
    assert template[3] == f"referee:{grpc_port}"
    assert int(template[2]) >= replicas(referee)
    (defaults,) = [line for line in backend if line[0] == "default-server"]
    assert "check" in defaults and "resolvers" in defaults
    assert "port" not in defaults and "addr" not in defaults, "the check must reach the gRPC port itself"
    assert defaults[defaults.index("init-addr") + 1] == "none", "start even while a referee is down"
    (resolvers,) = [name for name in config if name.startswith("resolvers ")]
    assert defaults[defaults.index("resolvers") + 1] == resolvers.split()[1]
    assert ["nameserver", "compose", "127.0.0.11:53"] in config[resolvers]
    assert ["balance", "leastconn"] in backend, "long-lived streams: the referee with the fewest"
    # Bot streams idle between matches: the referee's keepalive (20 s) must fit in the timeouts.
    timeouts = {line[1]: line[2] for line in config["defaults"] if line[0] == "timeout"}
    for side in ("client", "server"):
        assert timeouts[side].endswith("m") and int(timeouts[side][:-1]) >= 1, timeouts


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy not installed (Debian package 'haproxy')")
def test_haproxy_config_is_valid(tmp_path):
    done = subprocess.run(["haproxy", "-c", "-f", str(DEPLOY / "haproxy.cfg")], capture_output=True, text=True,
                          timeout=30, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_prometheus_scrapes_every_worker_live_worker_and_referee():
    yaml = pytest.importorskip("yaml")
    services = compose_file(SECRETS)["services"]
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    scraped = {(name, str(sd["port"])) for job in config["scrape_configs"] for sd in job.get("dns_sd_configs", [])
               for name in sd["names"]}
    for name in ("worker", "live-worker"):
        assert (name, environment(services[name])["ARENA_METRICS_PORT"]) in scraped, name
    # DNS discovery: one target per referee replica, not the one a static name would reach.
    assert ("referee", environment(services["referee"])["ARENA_GATEWAY_METRICS_PORT"]) in scraped
    assert not [job for job in config["scrape_configs"]
                for group in job.get("static_configs", []) for target in group["targets"]
                if target.split(":")[0] in services], "a static target reaches one replica only"


def test_tls_override_changes_only_services_of_the_main_file():
    main_services = compose_file(SECRETS)["services"]
    for name in ("compose.tls.yaml", "compose.private.yaml"):
        env = {"ARENA_TLS_DIR": "/etc/arena/tls", "ARENA_PRIVATE_ADDRESS": "10.1.2.3"}
        assert set(compose_file(env, name)["services"]) <= set(main_services), name
    # TLS ends at the referees: the balancer passes it through and holds no key.
    assert "grpc-lb" not in compose_file({"ARENA_TLS_DIR": "/etc/arena/tls"}, "compose.tls.yaml")["services"]


def docker_compose_usable() -> bool:
    if shutil.which("docker") is None:
        return False
    done = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
    return done.returncode == 0


@pytest.mark.parametrize("overrides", [[], ["compose.tls.yaml"], ["compose.private.yaml"]],
                         ids=["main", "tls", "private"])
def test_docker_compose_parses_the_files(overrides, tmp_path):
    if not docker_compose_usable():
        pytest.skip("docker compose is not installed")
    files = [arg for name in ["compose.yaml", *overrides] for arg in ("-f", str(DEPLOY / name))]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **SECRETS,
           "ARENA_TLS_DIR": "/etc/arena/tls", "ARENA_PRIVATE_ADDRESS": "10.1.2.3"}
    # `config` reads and checks the files only: it neither pulls nor builds nor starts anything.
    done = subprocess.run(["docker", "compose", *files, "config", "--quiet"], capture_output=True, text=True,
                          env=env, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
