"""Write the Prometheus Operator's copy of the alert rules: the PrometheusRule of
deploy/kubernetes/components/prometheus-operator, made from deploy/alerts.yml.

    python -m tools.prometheusrule          # write it
    python -m tools.prometheusrule --check  # exit 1 if it is not what deploy/alerts.yml gives

The rules are written once, in deploy/alerts.yml: Prometheus loads that file as it is (compose,
a Prometheus of your own), and the test suite checks and unit-tests it with promtool. The
Operator takes rules only as a PrometheusRule resource, whose ``spec.groups`` is exactly that
file's ``groups``. Kustomize cannot make one from a file (its generators make ConfigMaps and
Secrets, and it reads nothing outside the component's folder), so the resource is committed,
written by this script, and the tests fail when it lags behind: a header, then the rules file
from ``groups:`` on, comments included, indented under ``spec:``. Indenting every line alike
keeps block scalars (``expr: |``) as they are, so the resource's groups equal the file's."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "deploy" / "alerts.yml"
TARGET = ROOT / "deploy" / "kubernetes" / "components" / "prometheus-operator" / "prometheusrule.yaml"
HEADER = """\
# Generated from deploy/alerts.yml by `python -m tools.prometheusrule`: edit the rules there and
# run it again (the tests fail while this file differs from what alerts.yml gives).
# The Prometheus resource must select this rule: kube-prometheus-stack selects only its own
# release's label unless installed with
# prometheus.prometheusSpec.ruleSelectorNilUsesHelmValues=false (README.md, "Metrics").
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: arena
  labels:
    app.kubernetes.io/name: arena
    app.kubernetes.io/component: alerts
spec:
"""


def render(rules: str) -> str:
    """The PrometheusRule for the text of a rules file whose one top-level key is ``groups``."""
    lines = rules.splitlines()
    starts = [number for number, line in enumerate(lines) if line.startswith("groups:")]
    if len(starts) != 1:
        raise ValueError("the rules file needs one top-level `groups:` line")
    body = lines[starts[0]:]
    for line in body[1:]:
        if line and not line.startswith((" ", "#")):
            raise ValueError(f"only `groups:` may be at the top level of the rules file, not {line!r}")
    return HEADER + "".join(f"  {line}\n" if line.strip() else "\n" for line in body)


def stale() -> bool:
    """True when the committed PrometheusRule is not what deploy/alerts.yml gives."""
    return not TARGET.exists() or TARGET.read_text() != render(SOURCE.read_text())


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: python -m tools.prometheusrule [--check]", file=sys.stderr)
        return 2
    if argv == ["--check"]:
        if stale():
            print(f"{TARGET.relative_to(ROOT)} is stale: run `python -m tools.prometheusrule`", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(render(SOURCE.read_text()))
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
