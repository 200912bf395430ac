package dev.courier.reliable;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The life of a reliable message, and the only moves it can make. A message is prepared {@code PENDING}; the
 * producer's confirm (or a check-back answering COMMITTED) makes it {@code SENT}, published to every
 * subscriber; when every subscriber has reported it consumed it is {@code COMPLETED}. A cancel (or a check-back
 * answering ROLLED_BACK) makes a pending message {@code CANCELLED}. A pending message that ran out of
 * check-backs is {@code DEAD}: an operator can resume it, and a late confirm or cancel from its producer still
 * settles it, because the producer's word is what the message stands for.
 */
public enum MessageState {
    PENDING,
    SENT,
    COMPLETED,
    CANCELLED,
    DEAD;

    private static final Map<MessageState, Set<MessageState>> MOVES = Map.of(
            PENDING, EnumSet.of(SENT, CANCELLED, DEAD),
            SENT, EnumSet.of(COMPLETED),
            COMPLETED, EnumSet.noneOf(MessageState.class),
            CANCELLED, EnumSet.noneOf(MessageState.class),
            DEAD, EnumSet.of(PENDING, SENT, CANCELLED));

    public boolean canMoveTo(MessageState next) {
        return MOVES.get(this).contains(next);
    }

    /**
     * The check every write of a message's state passes ({@code MessageStore.moveMessage}, and each recorded
     * move, batches included). A caller's illegal request is refused before this, as a 409; reaching this is a bug.
     *
     * @throws IllegalStateException when the move from this state to {@code next} is not allowed
     */
    void requireMoveTo(MessageState next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("a reliable message cannot move from " + this + " to " + next);
        }
    }

    /** Whether the message is finished: nothing will change it again. */
    public boolean isFinal() {
        return MOVES.get(this).isEmpty();
    }
}
