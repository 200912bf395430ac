package dev.courier.audit;

import dev.courier.platform.DatabaseClock;
import dev.courier.platform.JobTurns;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps the audit trail for {@code courier.audit.retention} (default 90 days): once an hour, on one server (the
 * {@code audit.retention} turn of {@link JobTurns}, held for half an hour, so whichever server's timer fires first
 * each hour purges), deletes older entries. A purge is idempotent: one that overlaps another deletes nothing twice.
 */
@Singleton
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // the turn and the purge each commit on their own
public class AuditRetention {

    static final String JOB = "audit.retention";
    private static final Logger LOG = Logger.getLogger(AuditRetention.class.getName());

    @Inject
    private AuditTrail trail;

    @Inject
    private DatabaseClock clock;

    @Inject
    @ConfigProperty(name = "courier.audit.retention", defaultValue = "P90D")
    Duration retention;

    @Inject
    private JobTurns turns;

    @Schedule(hour = "*", minute = "17", persistent = false)
    void onSchedule() {
        try {
            purge();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "purging the audit trail failed; it runs again in an hour", e);
        }
    }

    /** One purge, if it is this server's turn. @return the entries deleted, or empty when another server purges */
    public Optional<Integer> purge() {
        if (turns.take(JOB, Duration.ofMinutes(30)).isEmpty()) {
            return Optional.empty();
        }
        int purged = trail.purge(clock.instant().minus(retention));
        if (purged > 0) {
            LOG.info("purged " + purged + " audit entries older than " + retention);
        }
        return Optional.of(purged);
    }
}
