package dev.courier.queue;

import dev.courier.platform.AfterCommit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This server's copy of the queue definitions it read lately, so that sending, receiving and acknowledging cost
 * no query for a queue's settings. How the copy stays correct:
 * <ul>
 * <li>a definition changed or dropped through this server is forgotten here when that transaction commits, so
 * the next operation reads the new one; the transaction that changes it neither uses nor keeps a copy of it (it
 * might roll back);</li>
 * <li>other servers hear of the change on the wake-up topic ({@link WakeUps#settingsChanged}) and forget their
 * copy when the notice arrives (milliseconds);</li>
 * <li>no copy is used longer than {@code courier.queue.settings-ttl} (1 s) after it was read: the bound on
 * another server when a notice is lost (broker down), for settings and grants alike;</li>
 * <li>a send to a queue dropped on another server fails at once all the same (the message row's foreign key)
 * with 404, and forgets the copy.</li>
 * </ul>
 */
@ApplicationScoped
class QueueSpecs {

    private record Copy(QueueSpec spec, long readAt) {}

    private final Map<QueueName, Copy> copies = new ConcurrentHashMap<>();
    /** Moves on every forget: a read that began before it must not store what it read (it may be the old one). */
    private final AtomicLong generation = new AtomicLong();

    @Inject
    private QueueSettings settings;

    @Inject
    private AfterCommit afterCommit;

    @Inject
    private WakeUps wakeUps;

    /** The copy of {@code name}'s definition, if one was read less than the time to live ago. */
    Optional<QueueSpec> cached(QueueName name) {
        if (changingHere(name)) {
            return Optional.empty();
        }
        Copy copy = copies.get(name);
        if (copy == null || System.nanoTime() - copy.readAt() > settings.settingsTtl.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(copy.spec());
    }

    /** Call before reading a definition from the database, and pass to {@link #remember}. */
    long beforeRead() {
        return generation.get();
    }

    /** Keeps {@code spec}, read from the database after {@code before}, unless a definition changed since. */
    void remember(QueueSpec spec, long before) {
        if (changingHere(spec.name())) {
            return; // not committed yet: other operations must not see it
        }
        long readAt = System.nanoTime();
        copies.put(spec.name(), new Copy(spec, readAt));
        if (generation.get() != before) {
            copies.remove(spec.name()); // something was forgotten meanwhile: this read may be older than that
        }
    }

    /** Forgets {@code name}'s copy at once (a notice from another server, or a send that found it gone). */
    void forget(QueueName name) {
        generation.incrementAndGet();
        copies.remove(name);
    }

    /**
     * Forgets {@code name}'s copy here when the current transaction commits, and tells the other servers to
     * forget theirs: for a definition that changes or goes.
     */
    void changedOnCommit(QueueName name) {
        afterCommit.record(key(name), () -> Boolean.TRUE, changed -> {}, changed -> {
            forget(name);
            wakeUps.settingsChanged(name);
        });
    }

    /** Whether the current transaction changed {@code name}'s definition. */
    private boolean changingHere(QueueName name) {
        return afterCommit.recorded(key(name));
    }

    private static String key(QueueName name) {
        return "courier.queue.settings." + name.value();
    }
}
