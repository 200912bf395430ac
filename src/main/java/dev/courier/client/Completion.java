package dev.courier.client;

import jakarta.transaction.Status;

/**
 * How a transaction ended, as the helpers may act on it: only a status that says committed or rolled back is an
 * outcome. Any other status a transaction manager reports after completion ({@code STATUS_UNKNOWN} after a
 * heuristic hazard, a commit whose answer was lost with the database) says nothing about the rows: the commit may
 * have reached the disk (a synchronous standby that is promoted holds it). The helpers then make no call, and
 * Courier learns the truth from the rows themselves: the check-back reads the barrier row, the redelivery after the
 * delivery timeout meets the inbox row.
 */
enum Completion {
    COMMITTED,
    ROLLED_BACK,
    UNKNOWN;

    /** The completion that the status given to {@code afterCompletion} stands for. */
    static Completion of(int status) {
        return switch (status) {
            case Status.STATUS_COMMITTED -> COMMITTED;
            case Status.STATUS_ROLLEDBACK -> ROLLED_BACK;
            default -> UNKNOWN;
        };
    }
}
