package dev.courier.client;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.util.List;

/**
 * The {@code process <topic>} span of one {@link ReliableConsumer#consume}: a {@code CONSUMER} span whose parent
 * is the publish span named by the message's {@code traceparent} JMS property, current until closed. The only
 * class of the helpers that touches OpenTelemetry, and only when a consumer was given a {@code Tracer}: the
 * helpers load where OpenTelemetry's API is absent. Its methods take and give plain types for the same reason.
 */
final class ProcessSpan implements AutoCloseable {

    private static final String TOPIC = "courierTopic";
    private static final String TRACE = "traceparent";

    private static final TextMapGetter<Message> PROPERTIES = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Message message) {
            return List.of(TRACE);
        }

        @Override
        public String get(Message message, String key) {
            try {
                return message == null ? null : message.getStringProperty(key);
            } catch (JMSException e) {
                return null;
            }
        }
    };

    private final Span span;
    private final Scope scope;

    private ProcessSpan(Span span) {
        this.span = span;
        this.scope = span.makeCurrent();
    }

    /** {@code tracer}, checked to be an OpenTelemetry {@code Tracer}. */
    static Object tracer(Object tracer) {
        if (!(tracer instanceof Tracer)) {
            throw new IllegalArgumentException("an OpenTelemetry Tracer is required, not " + tracer);
        }
        return tracer;
    }

    /** @param tracer an OpenTelemetry {@code Tracer} */
    static AutoCloseable start(Object tracer, Message message, String id, String subscriber) throws JMSException {
        String topic = message.getStringProperty(TOPIC);
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), message, PROPERTIES);
        return new ProcessSpan(((Tracer) tracer)
                .spanBuilder("process " + topic)
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setAttribute("messaging.system", "activemq")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", topic == null ? "" : topic)
                .setAttribute("messaging.consumer.group.name", subscriber)
                .setAttribute("messaging.message.id", id)
                .startSpan());
    }

    /** Marks the message a duplicate (its effect was already applied). */
    static void duplicate(AutoCloseable span) {
        ((ProcessSpan) span).span.setAttribute("courier.duplicate", true);
    }

    /** Records why the handler failed. */
    static void failed(AutoCloseable span, Throwable failure) {
        ((ProcessSpan) span).span.recordException(failure);
    }

    @Override
    public void close() {
        scope.close();
        span.end();
    }
}
