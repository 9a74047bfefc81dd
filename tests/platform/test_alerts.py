"""The alert rules in deploy/alerts.yml: valid (`promtool check rules`), firing on the faults
they are for and quiet otherwise (`promtool test rules` with made-up series), and built only
from metrics the arena really exports."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "alerts.yml"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed (Debian package 'prometheus')")


def exported_names() -> set[str]:
    """Every series name the worker and gateway registries can export."""
    from prometheus_client import REGISTRY

    import arena.metrics  # noqa: F401  (registers the worker metrics)
    import arena.referee.gateway_metrics  # noqa: F401

    names = {"arena_queue_depth"}  # collected at scrape time from the broker
    for collector in list(REGISTRY._collector_to_names):  # noqa: SLF001
        for metric in collector.describe() if hasattr(collector, "describe") else []:
            names.add(metric.name)
            names |= {metric.name + suffix for suffix in ("_total", "_count", "_sum", "_bucket")}
    return names


def test_alerts_use_only_exported_metrics() -> None:
    rules = yaml.safe_load(RULES.read_text())["groups"][0]["rules"]
    used = {name for rule in rules for name in re.findall(r"\barena_[a-z_]+", rule["expr"])}
    assert used, "the rules watch the arena's metrics"
    assert used <= exported_names(), used - exported_names()
    config = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    assert "/etc/prometheus/alerts.yml" in config["rule_files"]
    assert "./alerts.yml:/etc/prometheus/alerts.yml:ro" in (ROOT / "deploy" / "compose.yaml").read_text()


@needs_promtool
def test_rules_are_valid() -> None:
    done = subprocess.run([PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_each_alert_fires_on_its_fault_and_stays_quiet_otherwise(tmp_path: Path) -> None:
    cases = textwrap.dedent(f"""
        rule_files: [{RULES}]
        evaluation_interval: 1m
        tests:
          # Work queued, nothing finishing: stalled after 10 minutes.
          - interval: 1m
            input_series:
              - series: 'arena_queue_depth{{queue="arena"}}'
                values: '5x40'
              - series: 'arena_matches_total{{game="durak",status="done"}}'
                values: '100x40'
            alert_rule_test:
              - eval_time: 30m
                alertname: ArenaTournamentStalled
                exp_alerts:
                  - exp_labels: {{severity: page}}
                    exp_annotations:
                      summary: "Tasks are queued but no match finished in 10 minutes"
                      description: "Queue depth 5. Check `arena worker` processes, their logs and the database; `arena tournament status ID` shows what is pending."
          # Work queued and matches finishing: quiet.
          - interval: 1m
            input_series:
              - series: 'arena_queue_depth{{queue="arena"}}'
                values: '5x40'
              - series: 'arena_matches_total{{game="durak",status="done"}}'
                values: '100+10x40'
            alert_rule_test:
              - eval_time: 30m
                alertname: ArenaTournamentStalled
                exp_alerts: []
          # A match failed: a ticket naming the game; none before it.
          - interval: 1m
            input_series:
              - series: 'arena_match_failures_total{{game="yaniv",reason="error"}}'
                values: '0x10 1x10'
            alert_rule_test:
              - eval_time: 5m
                alertname: ArenaMatchesFailing
                exp_alerts: []
              - eval_time: 15m
                alertname: ArenaMatchesFailing
                exp_alerts:
                  - exp_labels: {{severity: ticket, game: yaniv, reason: error}}
                    exp_annotations:
                      summary: "yaniv: matches failed (error)"
                      description: "`arena tournament status ID` lists the failures with their errors; fix the cause, then `arena tournament retry-failed ID`."
          # Processes waiting out a database outage.
          - interval: 1m
            input_series:
              - series: 'arena_outage_seconds_total{{waiter="task"}}'
                values: '0+60x10'
            alert_rule_test:
              - eval_time: 8m
                alertname: ArenaDatabaseOutage
                exp_alerts:
                  - exp_labels: {{severity: page}}
                    exp_annotations:
                      summary: "Arena processes are waiting out a database outage"
                      description: "Tasks keep their matches for ARENA_OUTAGE_SECONDS, then leave them pending; see the runbook in docs/operations.md."
    """)
    spec = tmp_path / "alerts_test.yml"
    spec.write_text(cases)
    done = subprocess.run([PROMTOOL, "test", "rules", str(spec)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
