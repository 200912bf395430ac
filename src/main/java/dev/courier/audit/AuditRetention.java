package dev.courier.audit;

import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps the audit trail for {@code courier.audit.retention} (default 90 days): once an hour, on every server (a
 * purge is idempotent), deletes older entries.
 */
@Singleton
public class AuditRetention {

    private static final Logger LOG = Logger.getLogger(AuditRetention.class.getName());

    @Inject
    private AuditTrail trail;

    @Inject
    private Clock clock;

    @Inject
    @ConfigProperty(name = "courier.audit.retention", defaultValue = "P90D")
    Duration retention;

    @Schedule(hour = "*", minute = "17", persistent = false)
    void purge() {
        int purged = trail.purge(clock.instant().minus(retention));
        if (purged > 0) {
            LOG.info("purged " + purged + " audit entries older than " + retention);
        }
    }
}
