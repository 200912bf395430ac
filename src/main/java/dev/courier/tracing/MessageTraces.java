package dev.courier.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;

/**
 * Marks a message's passage with a span and carries the trace in the message's {@code traceparent} header (W3C
 * Trace Context): a send or prepare is a {@code PRODUCER} span, child of whatever span is current (the REST
 * request's, whose parent is the caller's {@code traceparent}, or the Java caller's own); a receive or a publish to
 * the broker is a span whose parent is the context the message carries. Each call returns the headers to store or
 * hand on, with {@code traceparent} naming the span just made, so the next hop becomes its child.
 *
 * <p>Guarantee: tracing never changes what happens to a message. When tracing is off (MicroProfile Telemetry's SDK
 * disabled, the default) or the span is not sampled, the headers come back unchanged; a malformed stored
 * {@code traceparent} starts a new trace instead of failing.
 */
@ApplicationScoped
public class MessageTraces {

    /** The header (and JMS property) that carries the trace context, named as in W3C Trace Context. */
    public static final String HEADER = "traceparent";

    /** {@code messaging.system} of the transactional queue. */
    public static final String COURIER = "courier";

    /** {@code messaging.system} of reliable messages, which travel over ActiveMQ Artemis. */
    public static final String ARTEMIS = "activemq";

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    @Inject
    private Tracer tracer;

    /** The kinds of passage, with the span kind and the operation name of the messaging conventions. */
    public enum Passage {
        /** A message entering a queue or a topic (send, prepare). */
        SEND(SpanKind.PRODUCER, "send"),
        /** Courier handing a confirmed message to the broker. */
        PUBLISH(SpanKind.PRODUCER, "publish"),
        /** A receiver leasing a message. */
        RECEIVE(SpanKind.CONSUMER, "receive");

        private final SpanKind kind;
        private final String operation;

        Passage(SpanKind kind, String operation) {
            this.kind = kind;
            this.operation = operation;
        }
    }

    /**
     * Records one passage of a message through {@code destination}.
     *
     * @param headers the message's headers; for {@link Passage#SEND} its parent is the current span, otherwise the
     *        context in these headers (none: a new trace)
     * @return {@code headers} with {@code traceparent} set to the new span, or {@code headers} itself when nothing
     *         is recorded
     */
    public Map<String, String> record(
            Passage passage, String system, String destination, String messageId, Map<String, String> headers) {
        Passing passing = start(passage, system, destination, messageId, headers);
        passing.end(null);
        return passing.headers();
    }

    /**
     * A send whose outcome is not known yet (a prepare stored in a batch that may refuse it): the span starts now,
     * as the child of the current span, and ends at {@link Passing#end}, marked an error if the send was refused.
     */
    public Passing startSend(String system, String destination, String messageId, Map<String, String> headers) {
        return start(Passage.SEND, system, destination, messageId, headers);
    }

    /** A passage under way: the headers to store, naming its span, and the span, ended once. */
    public static final class Passing {
        private final Map<String, String> headers;
        private final Span span;

        private Passing(Map<String, String> headers, Span span) {
            this.headers = headers;
            this.span = span;
        }

        /** The message's headers with {@code traceparent} naming this span (unchanged when nothing is recorded). */
        public Map<String, String> headers() {
            return headers;
        }

        /**
         * Ends the span of a send that found its idempotency key taken: nothing was sent, and the span names the
         * original message, which the send answered with.
         */
        public void endDuplicateOf(String originalId) {
            span.setAttribute("messaging.message.id", originalId);
            span.setAttribute("courier.duplicate", true);
            span.end();
        }

        /** Ends the span, an error when {@code refused} is given. */
        public void end(Throwable refused) {
            if (refused != null) {
                span.setStatus(StatusCode.ERROR, String.valueOf(refused.getMessage()));
            }
            span.end();
        }
    }

    private Passing start(
            Passage passage, String system, String destination, String messageId, Map<String, String> headers) {
        headers = headers == null ? Map.of() : headers;
        Context parent = passage == Passage.SEND ? Context.current() : carried(headers);
        var builder = tracer.spanBuilder(passage.operation + " " + destination)
                .setSpanKind(passage.kind)
                .setParent(parent)
                .setAttribute("messaging.system", system)
                .setAttribute("messaging.operation.type", passage.operation)
                .setAttribute("messaging.destination.name", destination);
        if (messageId != null) {
            builder.setAttribute("messaging.message.id", messageId);
        }
        Span span = builder.startSpan();
        if (!span.isRecording()) {
            return new Passing(headers, span);
        }
        Map<String, String> traced = new HashMap<>(headers);
        W3CTraceContextPropagator.getInstance().inject(Context.current().with(span), traced, Map::put);
        return new Passing(traced, span);
    }

    /** The trace context {@code headers} carry, or the root context when they carry none (or a malformed one). */
    private static Context carried(Map<String, String> headers) {
        if (headers == null || !headers.containsKey(HEADER)) {
            return Context.root();
        }
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HEADERS);
    }
}
