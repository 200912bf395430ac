package dev.courier.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The calls an upstream or downstream application makes to Courier's reliable message service. {@link HttpCourierApi}
 * makes them over HTTP; this interface is the seam where an application (or a test) puts its own transport.
 * Every method throws {@link CourierException} when the call did not succeed.
 */
public interface CourierApi {

    /**
     * Prepares a message. @param checkBackAfter null for Courier's default @return the message id
     */
    String prepare(
            String topic, String producer, String payloadJson, Map<String, String> headers, Duration checkBackAfter);

    void confirm(String messageId);

    void cancel(String messageId);

    void consumed(String messageId, String subscriber);

    /** A producer's word on one message, as a batch carries it: its transaction committed (confirm) or not. */
    record Settle(String messageId, boolean committed) {
        public Settle {
            Objects.requireNonNull(messageId, "messageId is required");
        }
    }

    /**
     * Confirms and cancels many messages; each is answered on its own, and a refused one does not stop the
     * others. This default makes one call per message; {@link HttpCourierApi} sends them all in one request (one
     * transaction in Courier).
     *
     * @return one entry per settle, in order: null when Courier accepted it, else why it refused it
     * @throws CourierException when the call itself failed (none is known to be recorded)
     */
    default List<String> settle(List<Settle> settles) {
        return eachOnItsOwn(settles, s -> {
            if (s.committed()) {
                confirm(s.messageId());
            } else {
                cancel(s.messageId());
            }
        });
    }

    void failed(String messageId, String subscriber, String reason);

    /** A consumed report ({@code reason} null) or a failed one, for {@link #report}. */
    record Report(String messageId, String subscriber, String reason) {

        public Report {
            Objects.requireNonNull(messageId, "messageId is required");
            Objects.requireNonNull(subscriber, "subscriber is required");
        }

        public boolean consumed() {
            return reason == null;
        }
    }

    /**
     * Makes many reports; each is answered on its own, and a refused one does not stop the others. This default
     * makes one call per report; {@link HttpCourierApi} sends them all in one request (one transaction in Courier).
     *
     * @return one entry per report, in order: null when Courier recorded it, else why it refused it
     * @throws CourierException when the call itself failed (no report is known to be recorded)
     */
    default List<String> report(List<Report> reports) {
        return eachOnItsOwn(reports, r -> {
            if (r.consumed()) {
                consumed(r.messageId(), r.subscriber());
            } else {
                failed(r.messageId(), r.subscriber(), r.reason());
            }
        });
    }

    /** One call per item: null when it was accepted, else why Courier refused it; no answer at all is thrown. */
    private static <T> List<String> eachOnItsOwn(List<T> items, java.util.function.Consumer<T> call) {
        List<String> refused = new ArrayList<>(items.size());
        for (T item : items) {
            try {
                call.accept(item);
                refused.add(null);
            } catch (CourierException e) {
                if (e.status() == 0) {
                    throw e;
                }
                refused.add(e.getMessage());
            }
        }
        return refused;
    }
}
