package dev.courier.reliable;

import dev.courier.client.CourierApi;
import dev.courier.client.CourierException;
import dev.courier.platform.ProblemException;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reliable service's calls made in process, for code deployed in Courier's own application (as the
 * transactional queue's Java API is): the producer and consumer helpers over this instead of {@code
 * HttpCourierApi} make no HTTP request, and so no authentication or grant check either — the caller is trusted
 * code in the server. Guarantee: each call commits on its own, in a transaction of its own ({@code REQUIRES_NEW})
 * on Courier's database, whatever transaction the caller's thread holds, exactly as a call over HTTP would: a
 * prepare is stored before the caller's local transaction commits (the protocol's step 1) and stays, pending and
 * checked back, if that transaction rolls back. A refused call throws {@link CourierException} with the status
 * the REST API would have answered and nothing of it is written.
 */
@Stateless
@LocalBean
@TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
public class LocalCourierApi implements CourierApi {

    @Inject
    private ReliableMessages messages;

    @Inject
    private Prepares prepares;

    /** Stored in a transaction of its own, with the prepares that come at the same time ({@link Prepares}). */
    @Override
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public String prepare(
            String topic, String producer, String payloadJson, Map<String, String> headers, Duration checkBackAfter) {
        return refusedAs(
                () -> prepares.prepare(new Prepare(topic, producer, payloadJson, headers, checkBackAfter, null)));
    }

    @Override
    public void confirm(String messageId) {
        refusedAs(() -> messages.confirm(messageId, Optional.empty(), Optional.empty()));
    }

    @Override
    public void cancel(String messageId) {
        refusedAs(() -> messages.cancel(messageId));
    }

    @Override
    public void consumed(String messageId, String subscriber) {
        refusedAs(() -> messages.consumed(messageId, subscriber));
    }

    @Override
    public void failed(String messageId, String subscriber, String reason) {
        refusedAs(() -> messages.failed(messageId, subscriber, reason == null || reason.isBlank() ? "failed" : reason));
    }

    /** All the settles in one transaction, each answered on its own (as {@code POST api/messages/settles}). */
    @Override
    public List<String> settle(List<Settle> settles) {
        List<dev.courier.reliable.Settle> items = new ArrayList<>(settles.size());
        settles.forEach(s -> items.add(new dev.courier.reliable.Settle(s.messageId(), s.committed())));
        List<String> refused = new ArrayList<>(items.size());
        for (dev.courier.reliable.Settle.Result result : refusedAs(() -> messages.settle(items))) {
            refused.add(refusal(result.problem()));
        }
        return refused;
    }

    /** All the reports in one transaction, each answered on its own (as {@code POST api/messages/reports}). */
    @Override
    public List<String> report(List<Report> reports) {
        List<dev.courier.reliable.Report> items = new ArrayList<>(reports.size());
        reports.forEach(r -> items.add(new dev.courier.reliable.Report(
                r.messageId(),
                r.subscriber(),
                r.consumed(),
                r.consumed() ? null : (r.reason().isBlank() ? "failed" : r.reason()))));
        List<String> refused = new ArrayList<>(items.size());
        for (dev.courier.reliable.Report.Result result : refusedAs(() -> messages.report(items))) {
            refused.add(refusal(result.problem()));
        }
        return refused;
    }

    private static String refusal(ProblemException problem) {
        return problem == null ? null : problem.status() + ": " + problem.getMessage();
    }

    /** Runs a call, turning a refusal into the helpers' exception; the refusal has rolled its transaction back. */
    private static <T> T refusedAs(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (ProblemException e) {
            throw new CourierException(e.status(), e.status() + " " + e.title() + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException | NullPointerException e) {
            // A record's own check (a null id): what the REST layer answers with 400.
            throw new CourierException(400, "400 Invalid request: " + e.getMessage(), e);
        }
    }
}
