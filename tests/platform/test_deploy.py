"""Deployment files: the Prometheus config passes ``promtool check config``, the dashboard
is valid JSON on metrics the arena exports, ``arena db`` migrates."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from arena import metrics
from arena.cli import main
from arena.store import db

from .conftest import ROOT


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed (Debian package 'prometheus')")
def test_prometheus_config_is_valid():
    done = subprocess.run(["promtool", "check", "config", "--syntax-only", str(ROOT / "deploy/prometheus.yml")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr


def test_dashboard_queries_name_exported_metrics():
    dashboard = json.loads((ROOT / "deploy/grafana/arena.json").read_text())
    exported = {m._name for m in (metrics.MATCHES, metrics.MATCH_SECONDS, metrics.DECISIONS,
                                  metrics.DECISION_SECONDS, metrics.FAULTS, metrics.FORFEITS, metrics.TASK_RETRIES)}
    exported.add("arena_queue_depth")
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            for name in re.findall(r"arena_[a-z_]+", target["expr"]):
                base = re.sub(r"_(total|bucket|sum|count)$", "", name)
                assert base in exported, f"{panel['title']}: {name} is not exported"


def test_db_upgrade_and_current(sqlite_url, monkeypatch, capsys):
    monkeypatch.setenv("ARENA_DATABASE_URL", sqlite_url)
    assert main(["db", "current"]) == 1
    assert main(["db", "upgrade"]) == 0
    assert main(["db", "current"]) == 0
    assert f"revision {db.head_revision()}" in capsys.readouterr().out
