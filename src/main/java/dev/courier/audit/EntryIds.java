package dev.courier.audit;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids of audit entries that sort in the order this server made them: version 7 UUIDs (RFC 9562: the Unix time in
 * milliseconds first, then a counter within the millisecond, then random bits), strictly increasing within one
 * server. Entries recorded at the same instant are thereby read back newest first, and a page's cursor (time, id)
 * is a total order.
 */
final class EntryIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** The last value given: milliseconds shifted left by 12, plus the counter within the millisecond. */
    private static final AtomicLong LAST = new AtomicLong();

    private EntryIds() {}

    static String next() {
        long now = System.currentTimeMillis() << 12;
        // A counter past 4095 in one millisecond runs on into the next: still increasing.
        long value = LAST.updateAndGet(last -> Math.max(last + 1, now));
        long high = ((value >>> 12) << 16) | 0x7000L | (value & 0xFFFL);
        long low = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low).toString();
    }
}
