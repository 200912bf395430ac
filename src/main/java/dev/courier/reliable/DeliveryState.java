package dev.courier.reliable;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The life of one message's delivery to one subscriber (a row of the ledger). {@code DELIVERED}: published,
 * the subscriber's report awaited; a timeout or a reported failure redelivers it to that subscriber alone and
 * it stays {@code DELIVERED}. {@code CONSUMED}: the subscriber reported it processed (final). {@code DEAD}: out of
 * retries; an operator's replay delivers it again, and a late consumed report still counts, because the
 * subscriber did process it.
 */
public enum DeliveryState {
    DELIVERED,
    CONSUMED,
    DEAD;

    private static final Map<DeliveryState, Set<DeliveryState>> MOVES = Map.of(
            DELIVERED, EnumSet.of(DELIVERED, CONSUMED, DEAD),
            CONSUMED, EnumSet.noneOf(DeliveryState.class),
            DEAD, EnumSet.of(DELIVERED, CONSUMED));

    public boolean canMoveTo(DeliveryState next) {
        return MOVES.get(this).contains(next);
    }

    /**
     * The check every write of a delivery's state passes ({@code LedgerStore.moveDelivery}, and each recorded
     * move, batches included).
     *
     * @throws IllegalStateException when the move from this state to {@code next} is not allowed
     */
    void requireMoveTo(DeliveryState next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("a delivery cannot move from " + this + " to " + next);
        }
    }
}
