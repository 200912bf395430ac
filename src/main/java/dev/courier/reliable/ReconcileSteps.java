package dev.courier.reliable;

import dev.courier.platform.DatabaseClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The steps of the reconciler's jobs ({@link CheckBacks}, {@link Redeliveries}, {@link Notices}) and of
 * {@link Retention}, each in a transaction of its own, so one failing item never undoes another.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.REQUIRES_NEW)
class ReconcileSteps {

    @Inject
    private ReliableDatabase database;

    @Inject
    private MessageStore messages;

    @Inject
    private LedgerStore ledger;

    @Inject
    private NoticeStore notices;

    @Inject
    private RetentionStore retention;

    @Inject
    private Protocol protocol;

    @Inject
    private ReliableSettings settings;

    @Inject
    private DatabaseClock clock;

    List<MessageStore.ClaimedCheck> claimChecks() {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            return messages.claimChecks(c, now, now.plus(settings.claimLease), settings.batchSize);
        } catch (SQLException e) {
            throw new IllegalStateException("claiming check-backs failed", e);
        }
    }

    /** Puts a claimed check back, due at {@code at}, without counting it (its producer's gate refused the call). */
    void defer(MessageStore.ClaimedCheck check, Instant at) {
        try (Connection c = database.connection()) {
            messages.rescheduleCheck(c, check, at, false, null, clock.instant());
        } catch (SQLException e) {
            throw new IllegalStateException("deferring a check-back failed", e);
        }
    }

    void committed(MessageStore.ClaimedCheck check, Optional<String> payload) {
        bound();
        protocol.confirm(check.id(), payload, Optional.empty(), "check-back answered COMMITTED");
    }

    void rolledBack(MessageStore.ClaimedCheck check) {
        bound();
        protocol.cancel(check.id(), "check-back answered ROLLED_BACK");
    }

    void unsettled(MessageStore.ClaimedCheck check, String why) {
        bound();
        protocol.checkUnsettled(check, why, false);
    }

    /** A claimed check past the horizon: dead with a notice, the producer not asked. */
    void pastHorizon(MessageStore.ClaimedCheck check) {
        bound();
        protocol.checkUnsettled(check, settings.pastHorizonReason(), true);
    }

    /** This step's transaction waits for a row lock 2 s at most (a message held by an in-doubt transaction). */
    private void bound() {
        try (Connection c = database.connection()) {
            ReliableDatabase.boundLockWaits(c);
        } catch (SQLException e) {
            throw new IllegalStateException("bounding lock waits failed", e);
        }
    }

    /** Claims due deliveries, at most {@code perSubscriber} of one subscriber ({@link LedgerStore#claimDue}). */
    List<LedgerStore.DueDelivery> claimDeliveries(int perSubscriber) {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            return ledger.claimDue(c, now, now.plus(settings.claimLease), settings.batchSize, perSubscriber);
        } catch (SQLException e) {
            throw new IllegalStateException("claiming due deliveries failed", e);
        }
    }

    /** Gives back claimed deliveries a round had no time for: due again now. */
    void release(List<LedgerStore.DeliveryRow> claimed) {
        try (Connection c = database.connection()) {
            ledger.releaseClaims(c, claimed, clock.instant());
        } catch (SQLException e) {
            throw new IllegalStateException("releasing claimed deliveries failed", e);
        }
    }

    void redeliver(LedgerStore.DeliveryRow due) {
        protocol.redeliverOrBury(due);
    }

    void stillQueued(LedgerStore.DeliveryRow due, String why) {
        protocol.stillQueued(due, why);
    }

    List<NoticeStore.ClaimedNotice> claimNotices() {
        Instant now = clock.instant();
        try (Connection c = database.connection()) {
            return notices.claimNotices(c, now, now.plus(settings.claimLease), settings.batchSize);
        } catch (SQLException e) {
            throw new IllegalStateException("claiming notices failed", e);
        }
    }

    /** @param error null when the producer answered 2xx */
    void noticeOutcome(NoticeStore.ClaimedNotice notice, String error) {
        Instant now = clock.instant();
        boolean done = error == null || notice.url() == null; // nobody to tell: recorded as done, with why
        try (Connection c = database.connection()) {
            notices.noticeOutcome(
                    c,
                    notice,
                    done,
                    now.plus(settings.redeliveryBackoff().delayAfter(notice.attempts() + 1, 1.0)),
                    error,
                    now);
        } catch (SQLException e) {
            throw new IllegalStateException("recording a notice failed", e);
        }
    }

    /** One batch of a purge of the messages finished before {@code before}. @return how many it deleted */
    int purge(Instant before) {
        try (Connection c = database.connection()) {
            return retention.purge(c, before, settings.batchSize);
        } catch (SQLException e) {
            throw new IllegalStateException("purging finished messages failed", e);
        }
    }
}
