package dev.courier.reliable;

import dev.courier.platform.PageCursor;

/**
 * A filter over reliable messages; every field is optional (null). {@code subscriber} with
 * {@code deliveryState} answers "which messages has subscriber S not consumed" ({@code DELIVERED} or {@code DEAD}).
 * {@code after} is the {@link ReliableMessagePage#next} cursor of the page before, or null for the first page.
 */
public record MessageQuery(
        MessageState state,
        String topic,
        String producer,
        String subscriber,
        DeliveryState deliveryState,
        int limit,
        String after) {

    public MessageQuery {
        if (topic != null) {
            Names.check("topic", topic);
        }
        if (producer != null) {
            Names.check("producer", producer);
        }
        if (subscriber != null) {
            Names.check("subscriber", subscriber);
        }
        if (deliveryState != null && subscriber == null) {
            throw dev.courier.platform.ProblemException.invalid("'deliveryState' needs 'subscriber'");
        }
        if (limit < 1 || limit > 1000) {
            throw dev.courier.platform.ProblemException.invalid("'limit' must be from 1 to 1000");
        }
        if (after != null) {
            PageCursor.decode(after); // refused here, before any query
        }
    }
}
