package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.platform.Columns;
import dev.courier.platform.SchemaMigration;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claims of due check-backs and notices ({@link LeaseClaim}) on a real, migrated embedded Derby database: due
 * rows that are open are claimed in due order, up to the limit, each with its version after the claim (which later
 * compare-and-swaps are fenced by) and its due time moved to the lease's end, so a second claim does not take them
 * again. (The PostgreSQL statement is exercised by the integration tests' PostgreSQL run.)
 */
class LeaseClaimTest {

    private static final SecretSeal SEAL =
            new SecretSeal(java.util.Base64.getEncoder().encodeToString(new byte[32]));

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static final Instant LEASE = NOW.plus(Duration.ofSeconds(60));

    @TempDir
    Path directory;

    private EmbeddedDataSource database;

    @BeforeEach
    void migrate() throws SQLException {
        database = new EmbeddedDataSource();
        database.setDatabaseName(directory.resolve("claims").toString());
        database.setCreateDatabase("create");
        SchemaMigration.migrate(database, "db/migration", SchemaMigration.HISTORY_TABLE);
        try (Connection c = database.getConnection()) {
            ProducerStore producers = new ProducerStore(SEAL);
            producers.saveProducer(
                    c, "shop", URI.create("http://shop/check"), URI.create("http://shop/tell"), null, "s", NOW);
            producers.saveProducer(c, "mute", URI.create("http://mute/check"), null, null, "m", NOW);
        }
    }

    @Test
    void should_claim_due_pending_checks_in_due_order_with_their_new_version_and_lease() throws SQLException {
        MessageStore messages = new MessageStore(SEAL);
        try (Connection c = database.getConnection()) {
            message(c, "m-late", MessageState.PENDING, NOW.minusSeconds(60));
            message(c, "m-first", MessageState.PENDING, NOW.minusSeconds(180));
            message(c, "m-sent", MessageState.SENT, NOW.minusSeconds(240));
            message(c, "m-second", MessageState.PENDING, NOW.minusSeconds(120));
            message(c, "m-not-due", MessageState.PENDING, NOW.plusSeconds(1));

            List<MessageStore.ClaimedCheck> claimed = messages.claimChecks(c, NOW, LEASE, 2);

            assertEquals(
                    List.of("m-first", "m-second"),
                    claimed.stream().map(MessageStore.ClaimedCheck::id).toList());
            MessageStore.ClaimedCheck first = claimed.get(0);
            assertEquals("shop", first.producer());
            assertEquals(URI.create("http://shop/check"), first.checkBackUrl());
            assertEquals("s", first.secret());
            assertEquals(3, first.checks());
            assertEquals(8, first.version(), "the version after the claim");
            assertEquals(LEASE, first.leaseUntil());
            assertEquals(NOW.minusSeconds(3600), first.createdAt());
            MessageStore.MessageRow stored = messages.message(c, "m-first").orElseThrow();
            assertEquals(8, stored.version());
            assertEquals(LEASE, stored.nextCheckAt());

            assertEquals(
                    List.of("m-late"),
                    messages.claimChecks(c, NOW, LEASE, 10).stream()
                            .map(MessageStore.ClaimedCheck::id)
                            .toList(),
                    "the claimed ones are leased");
            assertEquals(List.of(), messages.claimChecks(c, NOW, LEASE, 10));

            assertTrue(
                    messages.rescheduleCheck(c, first, NOW.plusSeconds(5), true, "pending", NOW),
                    "fenced by the version the claim returned");
            assertFalse(messages.rescheduleCheck(c, first, NOW.plusSeconds(5), true, "pending", NOW), "now stale");
        }
    }

    @Test
    void should_claim_due_unsent_notices_in_due_order_with_their_new_version() throws SQLException {
        NoticeStore notices = new NoticeStore(SEAL);
        try (Connection c = database.getConnection()) {
            notices.insertNotice(c, "n-second", "shop", "m", null, "MESSAGE_DEAD", "{\"n\":2}", NOW.minusSeconds(10));
            notices.insertNotice(c, "n-first", "mute", "m", "a", "DELIVERY_DEAD", "{\"n\":1}", NOW.minusSeconds(20));
            notices.insertNotice(c, "n-sent", "shop", "m", null, "MESSAGE_DEAD", "{}", NOW.minusSeconds(30));
            notices.insertNotice(c, "n-not-due", "shop", "m", null, "MESSAGE_DEAD", "{}", NOW.plusSeconds(1));
            execute(c, "UPDATE courier_rm_notice SET sent_at = next_attempt_at WHERE id = 'n-sent'");

            List<NoticeStore.ClaimedNotice> claimed = notices.claimNotices(c, NOW, LEASE, 10);

            assertEquals(
                    List.of("n-first", "n-second"),
                    claimed.stream().map(NoticeStore.ClaimedNotice::id).toList());
            assertNull(claimed.get(0).url(), "its producer has no notification URL");
            assertEquals("m", claimed.get(0).secret());
            assertEquals("{\"n\":1}", claimed.get(0).body());
            NoticeStore.ClaimedNotice second = claimed.get(1);
            assertEquals(URI.create("http://shop/tell"), second.url());
            assertEquals(0, second.attempts());
            assertEquals(1, second.version(), "the version after the claim");
            assertEquals(LEASE, nextAttempt(c, "n-second"));
            assertEquals(List.of(), notices.claimNotices(c, NOW, LEASE, 10), "the claimed ones are leased");

            notices.noticeOutcome(c, second, true, null, null, NOW);
            assertNull(nextAttempt(c, "n-second"), "sent: the outcome was fenced by the claimed version");
        }
    }

    @Test
    void should_claim_due_deliveries_oldest_first_at_most_so_many_of_one_subscriber_and_lease_them()
            throws SQLException {
        LedgerStore ledger = new LedgerStore();
        try (Connection c = database.getConnection()) {
            for (int i = 0; i < 6; i++) { // the backlog of one subscriber, all older than the other's one
                String id = String.format("m-%02d", i);
                message(c, id, MessageState.SENT, null);
                ledger.insertDeliveries(c, id, List.of(subscriber("down")));
                due(c, id, "down", NOW.minusSeconds(100 - i));
            }
            message(c, "m-lost", MessageState.SENT, null);
            ledger.insertDeliveries(c, "m-lost", List.of(subscriber("lost"), subscriber("down")));
            due(c, "m-lost", "lost", NOW.minusSeconds(10));
            execute(
                    c,
                    "UPDATE courier_rm_delivery SET next_attempt_at = NULL WHERE message_id = 'm-lost' "
                            + "AND subscriber = 'down'"); // not yet relayed: not due

            List<LedgerStore.DueDelivery> claimed = ledger.claimDue(c, NOW, LEASE, 10, 4);

            assertEquals(
                    List.of("m-00/down", "m-01/down", "m-02/down", "m-03/down", "m-lost/lost"),
                    claimed.stream()
                            .map(d -> d.row().messageId() + "/" + d.row().subscriber())
                            .toList(),
                    "four of the backlog, then the other subscriber's, in due order");
            assertEquals(LEASE, claimed.get(0).row().nextAttemptAt());
            assertEquals(1, claimed.get(0).row().version(), "the version after the claim");
            assertEquals("orders", claimed.get(0).topic());
            assertEquals(
                    List.of("m-04", "m-05"),
                    ledger.claimDue(c, NOW, LEASE, 10, 4).stream()
                            .map(d -> d.row().messageId())
                            .toList(),
                    "the claimed ones are leased");
            assertTrue(
                    ledger.moveDelivery(c, claimed.get(0).row(), DeliveryState.DELIVERED, 2, null, null, null),
                    "fenced by the version the claim returned");
            ledger.releaseClaims(
                    c, claimed.stream().map(LedgerStore.DueDelivery::row).toList(), NOW);
            assertEquals(
                    java.util.Set.of("m-01/down", "m-02/down", "m-03/down", "m-lost/lost"),
                    ledger.claimDue(c, NOW, LEASE, 10, 4).stream()
                            .map(d -> d.row().messageId() + "/" + d.row().subscriber())
                            .collect(java.util.stream.Collectors.toSet()),
                    "released claims are due again, not the one acted on meanwhile");
        }
    }

    private static Subscriber subscriber(String name) {
        return new Subscriber("orders", name, 3, Duration.ofSeconds(30), null);
    }

    private static void due(Connection c, String messageId, String subscriber, Instant at) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                "UPDATE courier_rm_delivery SET next_attempt_at = ? WHERE message_id = ? AND subscriber = ?")) {
            update.setTimestamp(1, Columns.timestamp(at), Columns.utc());
            update.setString(2, messageId);
            update.setString(3, subscriber);
            update.executeUpdate();
        }
    }

    private static void message(Connection c, String id, MessageState state, Instant nextCheckAt) throws SQLException {
        new MessageStore(SEAL)
                .insertMessages(
                        c,
                        List.of(new MessageStore.MessageRow(
                                id,
                                "orders",
                                "shop",
                                state,
                                "{}",
                                null,
                                10_000,
                                null,
                                3,
                                nextCheckAt,
                                null,
                                7,
                                NOW.minusSeconds(3600),
                                NOW.minusSeconds(3600))));
    }

    private static Instant nextAttempt(Connection c, String notice) throws SQLException {
        try (PreparedStatement select =
                c.prepareStatement("SELECT next_attempt_at FROM courier_rm_notice WHERE id = ?")) {
            select.setString(1, notice);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return Columns.instant(rows, 1);
            }
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            statement.executeUpdate();
        }
    }
}
