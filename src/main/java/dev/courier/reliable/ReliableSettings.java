package dev.courier.reliable;

import dev.courier.platform.Backoff;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The reliable message service's defaults and limits, from MicroProfile Config (documented in the README). */
@Dependent
class ReliableSettings {

    @Inject
    @ConfigProperty(name = "courier.reliable.check-back-timeout", defaultValue = "PT10S")
    Duration defaultCheckBackAfter;

    @Inject
    @ConfigProperty(name = "courier.reliable.max-checks", defaultValue = "15")
    int maxChecks;

    @Inject
    @ConfigProperty(name = "courier.reliable.check-backoff-initial", defaultValue = "PT5S")
    Duration checkBackoffInitial;

    @Inject
    @ConfigProperty(name = "courier.reliable.check-backoff-max", defaultValue = "PT5M")
    Duration checkBackoffMax;

    @Inject
    @ConfigProperty(name = "courier.reliable.check-back-call-timeout", defaultValue = "PT3S")
    Duration callTimeout;

    @Inject
    @ConfigProperty(name = "courier.reliable.producer-concurrency", defaultValue = "4")
    int producerConcurrency;

    @Inject
    @ConfigProperty(name = "courier.reliable.circuit-failures", defaultValue = "5")
    int circuitFailures;

    @Inject
    @ConfigProperty(name = "courier.reliable.circuit-open", defaultValue = "PT30S")
    Duration circuitOpen;

    @Inject
    @ConfigProperty(name = "courier.reliable.retry-limit", defaultValue = "10")
    int retryLimit;

    @Inject
    @ConfigProperty(name = "courier.reliable.delivery-timeout", defaultValue = "PT60S")
    Duration deliveryTimeout;

    @Inject
    @ConfigProperty(name = "courier.reliable.redelivery-backoff-initial", defaultValue = "PT1S")
    Duration redeliveryBackoffInitial;

    @Inject
    @ConfigProperty(name = "courier.reliable.redelivery-backoff-max", defaultValue = "PT5M")
    Duration redeliveryBackoffMax;

    @Inject
    @ConfigProperty(name = "courier.reliable.reconcile-interval", defaultValue = "PT1S")
    Duration reconcileInterval;

    @Inject
    @ConfigProperty(name = "courier.reliable.batch-size", defaultValue = "100")
    int batchSize;

    @Inject
    @ConfigProperty(name = "courier.reliable.max-waiting-checks", defaultValue = "1000")
    int maxWaitingChecks;

    @Inject
    @ConfigProperty(name = "courier.reliable.claim-lease", defaultValue = "PT60S")
    Duration claimLease;

    @Inject
    @ConfigProperty(name = "courier.reliable.retention", defaultValue = "P7D")
    Duration retention;

    // How long after its prepare Courier acts on a message at all: past it no check-back is made and no copy is
    // sent (the message or delivery goes dead with a notice, resume and replay answer 409), so an application
    // may purge barrier and inbox rows older than this (ClientTables.purge) without a late call finding them gone.
    @Inject
    @ConfigProperty(name = "courier.reliable.horizon", defaultValue = "P7D")
    Duration horizon;

    @Inject
    @ConfigProperty(name = "courier.reliable.max-payload-bytes", defaultValue = "262144")
    int maxPayloadBytes;

    /** Payload bytes one page of a message query carries at most (it ends early, with a next cursor). */
    @Inject
    @ConfigProperty(name = "courier.reliable.max-page-bytes", defaultValue = "4194304")
    long maxPageBytes;

    // Which hosts a producer's check-back and notification URLs may name: "*" for any, else a list of host names
    // (exact, case-insensitive) or suffixes starting with a dot (".example.com"). Stops a registration from
    // pointing Courier's calls into a network the caller could not reach itself; a host not named exactly must
    // also resolve to public addresses only (CallTargets).
    @Inject
    @ConfigProperty(name = "courier.reliable.allowed-url-hosts", defaultValue = "*")
    List<String> allowedUrlHosts;

    // Which of those hosts a producer's URL may name over plain http (unencrypted: a check-back's answer becomes
    // the message its subscribers get). The same form; by default none, so producers' URLs are https.
    @Inject
    @ConfigProperty(name = "courier.reliable.plain-http-hosts")
    Optional<List<String>> plainHttpHosts;

    // Producers whose check-back answers Courier takes unsigned (CallSignature.answerHeaders): for a producer
    // written before answers were signed, until it signs them. Names, by default none.
    @Inject
    @ConfigProperty(name = "courier.reliable.unsigned-answers-from")
    Optional<List<String>> unsignedAnswersFrom;

    // The relay: entries per local broker transaction, and how often it looks at the outbox with nothing to wake
    // it (a confirm on this server wakes it at once; this interval picks up what a stopped server left).
    @Inject
    @ConfigProperty(name = "courier.reliable.relay-batch", defaultValue = "100")
    int relayBatch;

    @Inject
    @ConfigProperty(name = "courier.reliable.relay-idle-interval", defaultValue = "PT1S")
    Duration relayIdleInterval;

    // A batch's payload bytes (each payload times the copies it makes) at most; a single larger entry goes alone.
    @Inject
    @ConfigProperty(name = "courier.reliable.relay-batch-bytes", defaultValue = "16777216")
    long relayBatchBytes;

    // How long a relay's claim on its batch may be held at most (PostgreSQL ends a session idle in its transaction
    // that long): what a frozen or cut-off server holds back before another relay publishes its batch.
    @Inject
    @ConfigProperty(name = "courier.reliable.relay-claim-timeout", defaultValue = "PT30S")
    Duration relayClaimTimeout;

    /** Whether a message prepared at {@code createdAt} is past the horizon at {@code now}. */
    boolean pastHorizon(Instant createdAt, Instant now) {
        return horizonOf(createdAt).isBefore(now);
    }

    /** The last instant Courier acts on a message prepared at {@code createdAt}: no copy is handled after it. */
    Instant horizonOf(Instant createdAt) {
        return createdAt.plus(horizon);
    }

    /** Why a message past the horizon gets no further check-back or copy. */
    String pastHorizonReason() {
        return "past courier.reliable.horizon (" + horizon + " after its prepare): no further check-back or copy";
    }

    /** Between check-backs that settled nothing: doubling from the initial delay up to the cap. */
    Backoff checkBackoff() {
        return new Backoff(checkBackoffInitial, 2.0, checkBackoffMax);
    }

    /** Before a redelivery, and between attempts to notify a producer: doubling up to the cap. */
    Backoff redeliveryBackoff() {
        return new Backoff(redeliveryBackoffInitial, 2.0, redeliveryBackoffMax);
    }
}
