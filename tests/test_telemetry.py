"""Observability: the metrics hook (recording, prometheus-client), OpenTelemetry spans and the
rate-limited scorer warnings."""

from __future__ import annotations

import logging

import pytest

import director_fast as df
from director_fast import _log, telemetry
from director_fast.errors import InputTypeError

FACTS = ["Acme was founded in 1998.", "Acme is based in Oslo."]


@pytest.fixture
def metrics():
    rec = telemetry.RecordingMetrics()
    old = telemetry.set_metrics_hook(rec)
    try:
        yield rec
    finally:
        telemetry.set_metrics_hook(old)


def _halting_stream() -> df.StreamSession:
    g = df.stream_guard(["Acme ", "was ", "founded ", "in ", "2004."], df.CoherenceScorer(knowledge=FACTS))
    out = "".join(g)
    assert out == "" and g.session.halted
    return g.session


def test_recording_hook_counts_halts_verdicts_and_review_time(metrics):
    s = df.CoherenceScorer(knowledge=FACTS)
    assert s.review("", "Acme was founded in 1998.")[0]
    assert not s.review("", "Acme was founded in 2004.")[0]
    assert not s.score("", "Acme is based in Bergen.").approved
    assert metrics.count("director_fast_verdicts_total", approved="true") == 1
    assert metrics.count("director_fast_verdicts_total", approved="false") == 2
    times = metrics.values("director_fast_review_seconds")
    assert len(times) == 3 and all(0.0 < t < 5.0 for t in times)
    sess = _halting_stream()
    assert metrics.count("director_fast_halts_total", reason=sess.halt_reason.value) == 1
    assert metrics.count("director_fast_halts_total") == 1
    # a stream that completes is no halt
    g = df.stream_guard(["Acme ", "was ", "founded ", "in ", "1998."], df.CoherenceScorer(knowledge=FACTS))
    assert "".join(g) == "Acme was founded in 1998."
    assert metrics.count("director_fast_halts_total") == 1


def test_no_hook_no_counts_and_hook_removal():
    rec = telemetry.RecordingMetrics()
    old = telemetry.set_metrics_hook(rec)
    assert telemetry.get_metrics_hook() is rec
    telemetry.set_metrics_hook(old)
    df.CoherenceScorer(knowledge=FACTS).review("", "Acme was founded in 1998.")
    assert rec.counters == {} and rec.histograms == {}


def test_hook_validation():
    with pytest.raises(InputTypeError, match="inc"):
        telemetry.set_metrics_hook(object())  # type: ignore[arg-type]


def test_broken_hook_never_breaks_a_verdict_or_a_halt(caplog):
    class Broken:
        def inc(self, name, labels):
            raise RuntimeError("exporter down")

        def observe(self, name, value, labels):
            raise RuntimeError("exporter down")

    _log._reset()
    old = telemetry.set_metrics_hook(Broken())
    try:
        with caplog.at_level(logging.WARNING, logger="director_fast.telemetry"):
            ok, cs = df.CoherenceScorer(knowledge=FACTS).review("", "Acme was founded in 1998.")
            sess = _halting_stream()
    finally:
        telemetry.set_metrics_hook(old)
    assert ok and cs.approved and sess.halted and len(sess.safety_events) == 1
    recs = [r for r in caplog.records if r.name == "director_fast.telemetry"]
    assert len(recs) == 1 and "exporter down" in recs[0].getMessage()  # rate-limited


def test_prometheus_client_exports_the_three_series():
    prom = pytest.importorskip("prometheus_client")
    reg = prom.CollectorRegistry()
    hook = telemetry.PrometheusMetrics(registry=reg)
    old = telemetry.set_metrics_hook(hook)
    try:
        s = df.CoherenceScorer(knowledge=FACTS)
        s.review("", "Acme was founded in 1998.")
        s.review("", "Acme was founded in 2004.")
        sess = _halting_stream()
    finally:
        telemetry.set_metrics_hook(old)
    get = reg.get_sample_value
    assert get("director_fast_verdicts_total", {"approved": "true"}) == 1.0
    assert get("director_fast_verdicts_total", {"approved": "false"}) == 1.0
    assert get("director_fast_halts_total", {"reason": sess.halt_reason.value}) == 1.0
    assert get("director_fast_review_seconds_count") == 2.0
    assert 0.0 < get("director_fast_review_seconds_sum") < 10.0
    text = prom.generate_latest(reg).decode()
    assert "director_fast_halts_total" in text and 'director_fast_review_seconds_bucket{le="0.001"}' in text


def test_opentelemetry_review_spans_and_halt_events():
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure_tracing(tracer_provider=provider)
    try:
        s = df.CoherenceScorer(knowledge=FACTS)
        s.review("", "Acme was founded in 1998.")
        s.review("", "Acme was founded in 2004.")
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("request"):
            sess = _halting_stream()
        with pytest.raises(ConnectionError):
            df.CoherenceScorer(knowledge=_DownRetriever()).review("", "Acme was founded in 1998.")
        telemetry.configure_tracing(False)
        s.review("", "Acme is based in Oslo.")  # tracing off: no span
    finally:
        telemetry.configure_tracing()
    spans = exporter.get_finished_spans()
    reviews = [sp for sp in spans if sp.name == "director_fast.review"]
    # the two reviews, the stream's sentence is not a review, the failed one; none after switching off
    assert len(reviews) == 3
    assert [sp.attributes["director_fast.approved"] for sp in reviews[:2]] == [True, False]
    assert reviews[0].attributes["director_fast.claims"] == 1
    assert reviews[2].status.status_code.name == "ERROR"
    assert any(e.name == "exception" for e in reviews[2].events)
    request = [sp for sp in spans if sp.name == "request"][0]
    halts = [e for e in request.events if e.name == "director_fast.halt"]
    assert len(halts) == 1
    assert halts[0].attributes["director_fast.halt_reason"] == sess.halt_reason.value
    assert halts[0].attributes["director_fast.event_id"] == sess.safety_events[0].event_id


def test_configure_tracing_validation():
    with pytest.raises(InputTypeError):
        telemetry.configure_tracing("yes")  # type: ignore[arg-type]
    with pytest.raises(InputTypeError):
        telemetry.configure_tracing(tracer_provider=object())


class _DownRetriever:
    """A retriever whose backend is down."""

    def retrieve(self, query, k=5, tenant=""):
        raise ConnectionError("vector store unreachable")


def test_scorer_warnings_are_rate_limited(caplog):
    _log._reset()
    s = df.CoherenceScorer()
    kb = df.KnowledgeBase()
    kb.add_facts(["Acme was founded in 1998."], tenant="t1")
    lenient = df.CoherenceScorer(knowledge=kb, allow_unknown_tenant=True)
    down = df.CoherenceScorer(knowledge=_DownRetriever())
    with caplog.at_level(logging.WARNING, logger="director_fast.scorer"):
        for _ in range(5):
            s.review("", "Acme was founded in 1998.")
            lenient.review("", "Acme was founded in 1998.", tenant_id="t2")
            with pytest.raises(df.RetrievalError) as ei:  # also an OSError, caused by the ConnectionError
                down.review("", "Acme was founded in 1998.")
            assert isinstance(ei.value, OSError) and isinstance(ei.value.__cause__, ConnectionError)
    msgs = [r.getMessage() for r in caplog.records if r.name == "director_fast.scorer"]
    assert sum("no evidence" in m for m in msgs) == 1
    assert sum("holds no knowledge" in m and "'t2'" in m for m in msgs) == 1
    assert sum("CoherenceScorer.score failed: RetrievalOSError" in m and "ConnectionError" in m for m in msgs) == 1
    assert len(msgs) == 3


def test_halts_are_logged_at_info(caplog):
    with caplog.at_level(logging.INFO, logger="director_fast.stream_guard"):
        sess = _halting_stream()
    assert any(r.levelno == logging.INFO and "stream halted" in r.getMessage()
               and sess.safety_events[0].event_id in r.getMessage() for r in caplog.records)
