"""The GSPRT's formulas against a reference written here from the model's definition, and its
error rates by simulation (seeded, so the same every run)."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats import sprt
from arena.stats.groups import outcomes

PENTANOMIAL = outcomes(2)
TRINOMIAL = [0.0, 0.5, 1.0]


def t_value(pdf):
    mean = sum(a * p for a, p in pdf)
    sd = math.sqrt(sum(p * (a - mean) ** 2 for a, p in pdf))
    return (mean - 0.5) / sd


def log_likelihood(freqs, probs):
    return sum(f * math.log(p) for f, p in zip(freqs, probs, strict=True))


def trinomial_on_curve(draws, t):
    """The (loss, draw, win) probabilities with this draw share and t-value ``t``: the t-value
    grows with win - loss, so bisection finds it."""
    def probs(margin):
        return [(1 - draws - margin) / 2, draws, (1 - draws + margin) / 2]

    low, high = -(1 - draws) + 1e-12, (1 - draws) - 1e-12
    for _ in range(60):
        middle = (low + high) / 2
        if t_value(list(zip(TRINOMIAL, probs(middle), strict=True))) < t:
            low = middle
        else:
            high = middle
    return probs((low + high) / 2)


def reference_trinomial_mle(freqs, t):
    """The constrained maximum found by brute force: the curve of trinomials with t-value t is
    one-dimensional (by the draw share); a grid, then golden sections around its best point."""
    def value(draws):
        return log_likelihood(freqs, trinomial_on_curve(draws, t))

    grid = [i / 100 for i in range(1, 100)]
    best = max(grid, key=value)
    low, high = best - 1 / 100, best + 1 / 100
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(80):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if value(a) < value(b):
            low = a
        else:
            high = b
    return trinomial_on_curve((low + high) / 2, t)


def test_bounds_are_walds():
    h = sprt.Hypotheses()
    assert h.lower == pytest.approx(-math.log(19)) and h.upper == pytest.approx(math.log(19))
    assert h.upper == pytest.approx(2.944, abs=1e-3)
    assert h.verdict(3.0) == "H1" and h.verdict(-3.0) == "H0" and h.verdict(0.0) is None


@pytest.mark.parametrize("elo0, elo1, alpha", [(5, 5, 0.05), (10, 0, 0.05), (0, 5, 0.0), (0, 5, 0.7),
                                               (0, math.inf, 0.05), (0, 1000, 0.05)])
def test_bad_hypotheses_are_refused(elo0, elo1, alpha):
    with pytest.raises(ValueError):
        sprt.Hypotheses(elo0, elo1, alpha)


@pytest.mark.parametrize("counts, t", [((30, 40, 50), 0.0), ((30, 40, 50), 0.05), ((12, 3, 20), -0.1),
                                       ((5, 90, 9), 0.2)])
def test_trinomial_mle_and_llr_match_a_brute_force_maximum(counts, t):
    freqs = [c / sum(counts) for c in counts]
    pdf = list(zip(TRINOMIAL, freqs, strict=True))
    found = [p for _, p in sprt.mle_t_value(pdf, t)]
    expected = reference_trinomial_mle(freqs, t)
    assert found == pytest.approx(expected, abs=1e-6)
    assert log_likelihood(freqs, found) >= log_likelihood(freqs, expected) - 1e-12
    # The LLR is the difference of the two maxima, times the number of games.
    h = sprt.Hypotheses(-10, 15)
    t0, t1 = (elo / sprt.NELO_PER_T for elo in (h.elo0, h.elo1))
    reg = sprt.observed_pdf(dict(zip(TRINOMIAL, counts, strict=True)), TRINOMIAL)
    weights = [p for _, p in reg]
    reference = sum(counts) * (log_likelihood(weights, reference_trinomial_mle(weights, t1))
                               - log_likelihood(weights, reference_trinomial_mle(weights, t0)))
    assert sprt.llr(dict(zip(TRINOMIAL, counts, strict=True)), h, TRINOMIAL, games=1) == pytest.approx(reference, rel=1e-6)


def test_pentanomial_mle_keeps_the_constraint_and_no_neighbour_on_it_is_likelier():
    rng = random.Random(5)
    pdf = sprt.observed_pdf({0: 3, 0.25: 25, 0.5: 50, 0.75: 30, 1: 4}, PENTANOMIAL)
    freqs = [f for _, f in pdf]
    t = 0.08
    found = [p for _, p in sprt.mle_t_value(pdf, t)]
    assert sum(found) == pytest.approx(1, abs=1e-12)
    assert t_value(list(zip(PENTANOMIAL, found, strict=True))) == pytest.approx(t, abs=1e-10)
    best = log_likelihood(freqs, found)
    for _ in range(200):
        # A random step within the simplex, then back onto the constraint along the tilt
        # p_i * exp(x a_i), which moves the t-value monotonically.
        step = [p * math.exp(rng.gauss(0, 0.02)) for p in found]
        step = [p / sum(step) for p in step]
        low, high = -5.0, 5.0
        for _ in range(100):
            x = (low + high) / 2
            tilted = [p * math.exp(x * a) for p, a in zip(step, PENTANOMIAL, strict=True)]
            tilted = [p / sum(tilted) for p in tilted]
            low, high = (x, high) if t_value(list(zip(PENTANOMIAL, tilted, strict=True))) < t else (low, x)
        assert log_likelihood(freqs, tilted) <= best + 1e-12


def test_llr_agrees_with_the_published_approximation():
    """Van den Bergh's approximation of the normalized GSPRT (games / 2) log((1 + (t - t0)^2) /
    (1 + (t - t1)^2)), with t the per-game t-value: close where the edges are small."""
    counts = {0: 40, 0.25: 230, 0.5: 480, 0.75: 260, 1: 50}
    h = sprt.Hypotheses(0, 5)
    pdf = sprt.observed_pdf(counts, PENTANOMIAL)
    games = 2 * sum(counts.values())
    t = t_value(pdf) / math.sqrt(2)
    t0, t1 = (elo / sprt.NELO_PER_T for elo in (h.elo0, h.elo1))
    approximate = games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
    assert sprt.llr(counts, h, PENTANOMIAL) == pytest.approx(approximate, rel=0.01)


def tilted_pentanomial(nelo):
    """A pentanomial with many draws tilted until its normalized Elo is ``nelo``."""
    base = [0.05, 0.2, 0.5, 0.2, 0.05]

    def tilt(x):
        p = [q * math.exp(x * a) for q, a in zip(base, PENTANOMIAL, strict=True)]
        return [v / sum(p) for v in p]

    low, high = -10.0, 10.0
    for _ in range(100):
        x = (low + high) / 2
        got = t_value(list(zip(PENTANOMIAL, tilt(x), strict=True))) / math.sqrt(2) * sprt.NELO_PER_T
        low, high = (x, high) if got < nelo else (low, x)
    return tilt((low + high) / 2)


def run_tests(true_nelo, hypotheses, runs, seed, batch=10, cap=2000):
    """How many of ``runs`` simulated tests accept H1, checking the LLR after every batch of
    groups as ``arena test`` does."""
    rng = random.Random(seed)
    probs = tilted_pentanomial(true_nelo)
    accepted = 0
    for _ in range(runs):
        counts: dict[float, int] = {}
        verdict = None
        while verdict is None and sum(counts.values()) < cap:
            for outcome in rng.choices(PENTANOMIAL, probs, k=batch):
                counts[outcome] = counts.get(outcome, 0) + 1
            verdict = hypotheses.verdict(sprt.llr(counts, hypotheses, PENTANOMIAL))
        accepted += verdict == "H1"
    return accepted / runs


RUNS = 400
# Three standard errors of a share of 5 % over RUNS runs.
SAMPLING = 3 * math.sqrt(0.05 * 0.95 / RUNS)


def test_equal_bots_accept_h1_at_most_alpha_of_the_time():
    h = sprt.Hypotheses(0, 80)  # wide bounds: short tests
    assert run_tests(0.0, h, RUNS, seed=1) <= h.alpha + SAMPLING


def test_a_real_edge_is_found_at_least_one_minus_beta_of_the_time():
    h = sprt.Hypotheses(0, 80)
    assert run_tests(120.0, h, RUNS, seed=2) >= 1 - h.beta - SAMPLING


def test_estimate_maps_the_mean_score_to_elo_with_an_interval():
    values = [0.25, 0.5, 0.75, 1.0] * 25 + [0.5] * 100
    e = sprt.estimate(values)
    assert e.score == pytest.approx(0.5625)
    assert e.elo == pytest.approx(-400 * math.log10(1 / 0.5625 - 1))
    assert e.elo_low < e.elo < e.elo_high and e.score_low < e.score < e.score_high
    sd = math.sqrt(sum((v - 0.5625) ** 2 for v in values) / len(values))
    assert e.score_high - e.score == pytest.approx(1.959964 * sd / math.sqrt(len(values)), rel=1e-6)
    assert e.nelo == pytest.approx(0.0625 / sd / math.sqrt(2) * 800 / math.log(10))
    assert sprt.estimate([1.0, 1.0]).elo < 2000  # held finite at a perfect score


@pytest.mark.parametrize("counts", [{0.0: 10}, {1.0: 4, 0.75: 5}, {0.5: 20_000}, {1.0: 20_000}, {0.25: 1}])
def test_one_sided_and_lopsided_samples_still_give_an_llr(counts):
    """Far from the hypotheses (every group lost, or won) the estimate under each is reached
    in steps, and rounding does not stop it."""
    for h in (sprt.Hypotheses(), sprt.Hypotheses(-20, 80)):
        value = sprt.llr(counts, h, PENTANOMIAL)
        assert math.isfinite(value)
        mean = sum(a * c for a, c in counts.items()) / sum(counts.values())
        assert (value > 0) == (mean > 0.5) or mean == 0.5
