"""The alert rules in deploy/alerts.yml: valid (`promtool check rules`), firing on the faults
they are for and quiet otherwise (`promtool test rules` with made-up series), and built only
from metrics the arena really exports."""

from __future__ import annotations

import json
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
    run_rule_tests(tmp_path, cases)


def rules_by_name() -> dict[str, dict]:
    return {rule["alert"]: rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]}


def description(alert: str) -> str:
    """An alert's description as a YAML (JSON) string, for those with no template in it."""
    text = rules_by_name()[alert]["annotations"]["description"]
    assert "{{" not in text
    return json.dumps(text)


def run_rule_tests(tmp_path: Path, cases: str) -> None:
    spec = tmp_path / "alerts_test.yml"
    spec.write_text(cases)
    done = subprocess.run([PROMTOOL, "test", "rules", str(spec)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_supervisor_alerts_fire_on_their_faults_and_stay_quiet_otherwise(tmp_path: Path) -> None:
    no_supervisor = {"severity": "page"}
    cases = textwrap.dedent(f"""
        rule_files: [{RULES}]
        evaluation_interval: 1m
        tests:
          # Work queued, supervisors standing by but none leading (the leader's sweeps stopped):
          # pending at first, paged after 5 minutes.
          - interval: 1m
            input_series:
              - series: 'arena_queue_depth{{queue="arena"}}'
                values: '5x20'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="led"}}'
                values: '100x20'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-2:9808",outcome="standby"}}'
                values: '0+12x20'
            alert_rule_test:
              - eval_time: 3m
                alertname: ArenaNoSupervisor
                exp_alerts: []
              - eval_time: 12m
                alertname: ArenaNoSupervisor
                exp_alerts:
                  - exp_labels: {no_supervisor}
                    exp_annotations:
                      summary: "No supervisor has led a sweep in 5 minutes: lost matches are not sent again"
                      description: {description("ArenaNoSupervisor")}
          # The same with a leader sweeping: quiet.
          - interval: 1m
            input_series:
              - series: 'arena_queue_depth{{queue="arena"}}'
                values: '5x20'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="led"}}'
                values: '100+12x20'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-2:9808",outcome="standby"}}'
                values: '0+12x20'
            alert_rule_test:
              - eval_time: 12m
                alertname: ArenaNoSupervisor
                exp_alerts: []
          # No leader, but nothing queued, played or failing: quiet.
          - interval: 1m
            input_series:
              - series: 'arena_queue_depth{{queue="arena"}}'
                values: '0x20'
              - series: 'arena_matches_total{{game="durak",status="done"}}'
                values: '100x20'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-2:9808",outcome="standby"}}'
                values: '0+12x20'
            alert_rule_test:
              - eval_time: 12m
                alertname: ArenaNoSupervisor
                exp_alerts: []
          # Redis unreachable: every sweep fails and the queue depth cannot be read.
          - interval: 1m
            input_series:
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="error"}}'
                values: '0+12x20'
              - series: 'arena_supervisor_sweeps_total{{instance="referee-1:9809",outcome="error"}}'
                values: '0+12x20'
            alert_rule_test:
              - eval_time: 12m
                alertname: ArenaNoSupervisor
                exp_alerts:
                  - exp_labels: {no_supervisor}
                    exp_annotations:
                      summary: "No supervisor has led a sweep in 5 minutes: lost matches are not sent again"
                      description: {description("ArenaNoSupervisor")}
          # Every worker and referee down: no sweep is counted anywhere.
          - interval: 1m
            input_series:
              - series: 'up{{job="arena-workers",instance="worker-1:9808"}}'
                values: '0x20'
            alert_rule_test:
              - eval_time: 3m
                alertname: ArenaNoSupervisor
                exp_alerts: []
              - eval_time: 6m
                alertname: ArenaNoSupervisor
                exp_alerts:
                  - exp_labels: {no_supervisor}
                    exp_annotations:
                      summary: "No supervisor has led a sweep in 5 minutes: lost matches are not sent again"
                      description: {description("ArenaNoSupervisor")}

          # One process's sweeps fail for 10 minutes while another leads: a ticket naming it.
          - interval: 1m
            input_series:
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="error"}}'
                values: '0+12x30'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-2:9808",outcome="led"}}'
                values: '0+12x30'
            alert_rule_test:
              - eval_time: 8m
                alertname: ArenaSupervisorFailing
                exp_alerts: []
              - eval_time: 15m
                alertname: ArenaSupervisorFailing
                exp_alerts:
                  - exp_labels: {{severity: ticket, instance: "worker-1:9808"}}
                    exp_annotations:
                      summary: "worker-1:9808: supervisor sweeps are failing"
                      description: {description("ArenaSupervisorFailing")}
              - eval_time: 15m
                alertname: ArenaNoSupervisor
                exp_alerts: []
          # A three-minute spell of failures (Redis restarting): quiet.
          - interval: 1m
            input_series:
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="error"}}'
                values: '0+12x3 36x30'
              - series: 'arena_supervisor_sweeps_total{{instance="worker-1:9808",outcome="led"}}'
                values: '0x3 0+12x30'
            alert_rule_test:
              - eval_time: 8m
                alertname: ArenaSupervisorFailing
                exp_alerts: []
              - eval_time: 15m
                alertname: ArenaSupervisorFailing
                exp_alerts: []

          # Workers killed mid-task over and over: two matches a minute come back with lapsed
          # leases, for long enough to open a ticket.
          - interval: 1m
            input_series:
              - series: 'arena_matches_resent_total{{reason="lease_lapsed"}}'
                values: '0+2x60'
              - series: 'arena_matches_resent_total{{reason="no_task"}}'
                values: '0x60'
            alert_rule_test:
              - eval_time: 20m
                alertname: ArenaMatchesResentOften
                exp_alerts: []
              - eval_time: 40m
                alertname: ArenaMatchesResentOften
                exp_alerts:
                  - exp_labels: {{severity: ticket, reason: lease_lapsed}}
                    exp_annotations:
                      summary: "lease_lapsed: 30 matches sent again in 15 minutes"
                      description: {description("ArenaMatchesResentOften")}
          # One worker killed once: its batch of 32 is sent again in one sweep; no ticket, ever.
          - interval: 1m
            input_series:
              - series: 'arena_matches_resent_total{{reason="lease_lapsed"}}'
                values: '0x10 32x50'
            alert_rule_test:
              - eval_time: 15m
                alertname: ArenaMatchesResentOften
                exp_alerts: []
              - eval_time: 25m
                alertname: ArenaMatchesResentOften
                exp_alerts: []
              - eval_time: 26m
                alertname: ArenaMatchesResentOften
                exp_alerts: []
              - eval_time: 40m
                alertname: ArenaMatchesResentOften
                exp_alerts: []
    """)
    run_rule_tests(tmp_path, cases)
