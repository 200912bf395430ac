package dev.courier.lab;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The lab's own view of the scenario's two PostgreSQL databases: it checks consistency from the rows, never from
 * Courier's counters, and reads the times that make time-to-consistency.
 */
final class LabDatabases implements AutoCloseable {

    /** What the databases say about one order. */
    record Outcome(long createdMillis, int reservations, long reservedMillis, String state, long settledMillis) {

        boolean rejected() {
            return state.equals("REJECTED");
        }

        boolean settled() {
            return reservations > 0 || rejected();
        }

        /** When its outcome was written: the reservation, or the rejection. */
        long outcomeMillis() {
            return reservations > 0 ? reservedMillis : settledMillis;
        }
    }

    /**
     * The orders of a run after quiescence: how many have each outcome, how many none (lost: no order row, or
     * neither outcome) or too many (duplicated: several reservations, or reserved and rejected), and how long the
     * outcomes took.
     *
     * @param toConsistencyNanos per reserved order: order committed → stock reserved
     * @param toOutcomeNanos per settled order: order committed → reservation or rejection
     * @param lastOutcomeMillis when the last outcome was written (epoch ms), 0 if none
     * @param unacknowledged orders created although their client was answered with an error (or not at all)
     */
    record Settlement(
            int reserved,
            int rejected,
            int lost,
            int duplicated,
            long[] toConsistencyNanos,
            long[] toOutcomeNanos,
            long lastOutcomeMillis,
            int unacknowledged) {}

    /**
     * Settles a load's orders: those it was told were accepted, and those the orders database holds from its
     * time although their client saw an error — they count too (a client would have retried them).
     */
    Settlement settle(OrderLoad load, Duration quiescence) throws SQLException, InterruptedException {
        List<String> accepted = load.acceptedIds();
        Set<String> all = new LinkedHashSet<>(accepted);
        all.addAll(orderIds(load.mode(), load.startMillis(), load.endMillis()));
        return settle(List.copyOf(all), all.size() - accepted.size(), quiescence);
    }

    /** Waits until every order of {@code ids} has an outcome, or {@code quiescence} has passed; then counts. */
    private Settlement settle(List<String> ids, int unacknowledged, Duration quiescence)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + quiescence.toNanos();
        Map<String, Outcome> outcomes = outcomes(ids);
        while ((outcomes.size() < ids.size() || !outcomes.values().stream().allMatch(Outcome::settled))
                && System.nanoTime() < deadline) {
            Thread.sleep(500);
            outcomes = outcomes(ids);
        }
        int reserved = 0;
        int rejected = 0;
        int lost = ids.size() - outcomes.size();
        int duplicated = 0;
        long last = 0;
        List<Long> toConsistency = new ArrayList<>();
        List<Long> toOutcome = new ArrayList<>();
        for (Outcome o : outcomes.values()) {
            if (o.reservations() > 0) {
                reserved++;
                toConsistency.add(Math.max(0, o.reservedMillis() - o.createdMillis()) * 1_000_000L);
            }
            if (o.rejected()) {
                rejected++;
            }
            if (!o.settled()) {
                lost++;
            } else {
                toOutcome.add(Math.max(0, o.outcomeMillis() - o.createdMillis()) * 1_000_000L);
                last = Math.max(last, o.outcomeMillis());
            }
            if (o.reservations() > 1 || (o.reservations() > 0 && o.rejected())) {
                duplicated++;
            }
        }
        return new Settlement(
                reserved,
                rejected,
                lost,
                duplicated,
                toConsistency.stream().mapToLong(Long::longValue).toArray(),
                toOutcome.stream().mapToLong(Long::longValue).toArray(),
                last,
                unacknowledged);
    }

    private final Connection orders;
    private final Connection inventory;

    LabDatabases() throws SQLException {
        orders = connect(System.getProperty("courier.db.name", "courier"));
        inventory = connect("courier_inventory");
    }

    /** The orders' outcomes, by order id. */
    Map<String, Outcome> outcomes(List<String> ids) throws SQLException {
        Map<String, long[]> reserved = new HashMap<>();
        try (PreparedStatement select = inventory.prepareStatement(
                "SELECT order_id, COUNT(*), "
                        + "MIN(EXTRACT(EPOCH FROM created_at) * 1000) FROM scenario_reservation WHERE order_id = ANY(?) GROUP BY order_id")) {
            select.setArray(1, array(inventory, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    reserved.put(rows.getString(1), new long[] {rows.getLong(2), (long) rows.getDouble(3)});
                }
            }
        }
        Map<String, Outcome> outcomes = new HashMap<>();
        try (PreparedStatement select =
                orders.prepareStatement("SELECT id, EXTRACT(EPOCH FROM created_at) * 1000, state, "
                        + "COALESCE(EXTRACT(EPOCH FROM settled_at) * 1000, 0) FROM scenario_order WHERE id = ANY(?)")) {
            select.setArray(1, array(orders, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    long[] r = reserved.getOrDefault(rows.getString(1), new long[] {0, 0});
                    outcomes.put(
                            rows.getString(1),
                            new Outcome((long) rows.getDouble(2), (int) r[0], r[1], rows.getString(3), (long)
                                    rows.getDouble(4)));
                }
            }
        }
        return outcomes;
    }

    long negativeStock() throws SQLException {
        try (Statement query = inventory.createStatement();
                ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM scenario_stock WHERE available < 0")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The ids of the orders of {@code mode} created between two moments (epoch ms), from the orders database. */
    List<String> orderIds(String mode, long fromMillis, long toMillis) throws SQLException {
        try (PreparedStatement select = orders.prepareStatement("SELECT id FROM scenario_order WHERE mode = ? "
                + "AND created_at >= to_timestamp(? / 1000.0) AND created_at <= to_timestamp(? / 1000.0)")) {
            select.setString(1, mode);
            select.setLong(2, fromMillis);
            select.setLong(3, toMillis);
            try (ResultSet rows = select.executeQuery()) {
                List<String> ids = new ArrayList<>();
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
                return ids;
            }
        }
    }

    /** PostgreSQL's prepared transactions not yet committed or rolled back, in every database. */
    int preparedTransactions() {
        try (Statement query = orders.createStatement();
                ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM pg_prepared_xacts")) {
            rows.next();
            return rows.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stock left of {@code sku}. */
    long stock(String sku) throws SQLException {
        try (PreparedStatement query =
                inventory.prepareStatement("SELECT available FROM scenario_stock WHERE sku = ?")) {
            query.setString(1, sku);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }

    /**
     * The inventory database "stopped" without stopping the cluster the orders database shares: new connections
     * refused, every open one cut (the lab's own excepted). Prepared transactions survive it, as they survive a
     * restart. {@code false} lets connections in again.
     */
    void refuseInventoryConnections(boolean refuse) throws SQLException {
        String database = inventory.getCatalog();
        try (Statement sql = orders.createStatement()) {
            sql.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS " + !refuse);
            if (refuse) {
                int own;
                try (Statement query = inventory.createStatement();
                        ResultSet pid = query.executeQuery("SELECT pg_backend_pid()")) {
                    pid.next();
                    own = pid.getInt(1);
                }
                try (PreparedStatement cut = orders.prepareStatement(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                + "WHERE datname = ? AND pid <> ? AND usename = current_user AND backend_type = 'client backend'")) {
                    cut.setString(1, database);
                    cut.setInt(2, own);
                    cut.executeQuery().close();
                }
            }
        }
    }

    private static Array array(Connection c, List<String> ids) throws SQLException {
        return c.createArrayOf("varchar", ids.toArray());
    }

    static Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + System.getProperty("courier.db.host", "localhost") + ":"
                        + System.getProperty("courier.db.port", "5432") + "/" + database,
                System.getProperty("courier.db.user", "courier"),
                System.getProperty("courier.db.password", "courier"));
    }

    @Override
    public void close() throws SQLException {
        orders.close();
        inventory.close();
    }
}
