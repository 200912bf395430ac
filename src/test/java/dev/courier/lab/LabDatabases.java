package dev.courier.lab;

import java.sql.Array;
import java.sql.Connection;
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

    /**
     * What the databases say about one order. {@code completedMillis}: when its outcome (reserved or rejected)
     * became visible to the orders service, the commit timestamp of the order row's last write
     * ({@code track_commit_timestamp}); 0 while it has none.
     */
    record Outcome(int reservations, String state, long completedMillis) {

        boolean rejected() {
            return state.equals("REJECTED");
        }

        boolean settled() {
            return reservations > 0 || rejected();
        }

        boolean completed() {
            return !state.equals("PLACED") && completedMillis > 0;
        }

        /** The order's state says one thing and the inventory another (reserved without a reservation, …). */
        boolean disagrees() {
            return switch (state) {
                case "RESERVED" -> reservations != 1;
                case "REJECTED" -> reservations != 0;
                default -> reservations != 0; // PLACED with a reservation: the outcome never came back
            };
        }
    }

    /**
     * The orders of a run after quiescence: how many have each outcome, how many none (lost: no order row, or
     * neither outcome) or too many (duplicated: several reservations, or reserved and rejected), and when the
     * outcomes committed.
     *
     * @param toCompletionNanos per order its client was answered for: order committed (the 201's arrival, a clock
     *        read after the commit) → its outcome committed in the orders database; 0 when both are one commit (xa)
     * @param completedMillis per completed order, when its outcome committed (epoch ms)
     * @param lastOutcomeMillis when the last outcome committed (epoch ms), 0 if none
     * @param unacknowledged orders created although their client was answered with an error (or not at all)
     * @param disagreeing orders whose final state disagrees with the inventory (see {@link Outcome#disagrees()})
     * @param unshipped xa orders reserved but without their shipment: an {@code OrderPlaced} event lost
     * @param completedById per completed order, when its outcome committed (epoch ms)
     */
    record Settlement(
            int reserved,
            int rejected,
            int lost,
            int duplicated,
            long[] toCompletionNanos,
            long[] completedMillis,
            long lastOutcomeMillis,
            int unacknowledged,
            int disagreeing,
            int unshipped,
            Map<String, Long> completedById) {

        /** Outcomes committed between two moments (epoch ms). */
        int completedBetween(long fromMillis, long toMillis) {
            return (int) java.util.Arrays.stream(completedMillis)
                    .filter(m -> m >= fromMillis && m <= toMillis)
                    .count();
        }
    }

    /**
     * Settles a load's orders: those it was told were accepted, and those the orders database holds from its
     * time although their client saw an error — they count too (a client would have retried them).
     */
    Settlement settle(OrderLoad load, Duration quiescence) throws SQLException, InterruptedException {
        List<String> accepted = load.acceptedIds();
        Set<String> all = new LinkedHashSet<>(accepted);
        all.addAll(orderIds(load.mode(), load.startMillis(), load.endMillis()));
        return settle(List.copyOf(all), all.size() - accepted.size(), load.acceptedAtMillis(), load.mode(), quiescence);
    }

    /** Waits until every order of {@code ids} has an outcome, or {@code quiescence} has passed; then counts. */
    private Settlement settle(
            List<String> ids, int unacknowledged, Map<String, Long> answeredMillis, String mode, Duration quiescence)
            throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + quiescence.toNanos();
        Map<String, Outcome> outcomes = outcomes(ids);
        while ((outcomes.size() < ids.size() || !outcomes.values().stream().allMatch(o -> o.settled() && o.completed()))
                && System.nanoTime() < deadline) {
            Thread.sleep(500);
            outcomes = outcomes(ids);
        }
        // xa: the order's OrderPlaced event books a shipment downstream; a reserved order without one lost it.
        List<String> toShip = "xa".equals(mode)
                ? outcomes.entrySet().stream()
                        .filter(e -> e.getValue().reservations() > 0)
                        .map(Map.Entry::getKey)
                        .toList()
                : List.of();
        int unshipped = toShip.size() - shipped(toShip);
        while (unshipped > 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
            unshipped = toShip.size() - shipped(toShip);
        }
        int disagreeing = 0;
        int reserved = 0;
        int rejected = 0;
        int lost = ids.size() - outcomes.size();
        int duplicated = 0;
        long last = 0;
        List<Long> toCompletion = new ArrayList<>();
        List<Long> completed = new ArrayList<>();
        Map<String, Long> completedById = new HashMap<>();
        for (Map.Entry<String, Outcome> e : outcomes.entrySet()) {
            Outcome o = e.getValue();
            if (o.reservations() > 0) {
                reserved++;
            }
            if (o.rejected()) {
                rejected++;
            }
            if (!o.settled()) {
                lost++;
            }
            if (o.disagrees()) {
                disagreeing++;
            }
            if (o.completed()) {
                completed.add(o.completedMillis());
                completedById.put(e.getKey(), o.completedMillis());
                last = Math.max(last, o.completedMillis());
                Long answered = answeredMillis.get(e.getKey());
                if (answered != null) {
                    toCompletion.add(Math.max(0, o.completedMillis() - answered) * 1_000_000L);
                }
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
                toCompletion.stream().mapToLong(Long::longValue).toArray(),
                completed.stream().mapToLong(Long::longValue).toArray(),
                last,
                unacknowledged,
                disagreeing,
                unshipped,
                completedById);
    }

    /**
     * An order's outcome commit time (epoch ms; 0 while it has none): the row's commit timestamp, of the outcome's
     * update (rms, queue) or of the order's insert, which carries its outcome (xa). Needs track_commit_timestamp on
     * this server (bin/postgres sets it).
     */
    private static final String OUTCOME_COMMITTED_MS = "CASE WHEN state <> 'PLACED' THEN "
            + "COALESCE(EXTRACT(EPOCH FROM pg_xact_commit_timestamp(xmin)) * 1000, 0) ELSE 0 END";

    /** The orders service's own database, on Courier's server (bin/postgres). */
    static final String ORDERS_DATABASE = System.getProperty("courier.lab.orders.db.name", "courier_lab_orders");

    private final Connection orders;
    private final Connection inventory;

    LabDatabases() throws SQLException {
        orders = connect(ORDERS_DATABASE);
        inventory = dev.courier.testing.Postgres.inventory();
    }

    /** The orders' outcomes, by order id. */
    Map<String, Outcome> outcomes(List<String> ids) throws SQLException {
        Map<String, Integer> reserved = new HashMap<>();
        try (PreparedStatement select = inventory.prepareStatement(
                "SELECT order_id, COUNT(*) FROM scenario_reservation WHERE order_id = ANY(?) GROUP BY order_id")) {
            select.setArray(1, array(inventory, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    reserved.put(rows.getString(1), rows.getInt(2));
                }
            }
        }
        Map<String, Outcome> outcomes = new HashMap<>();
        try (PreparedStatement select = orders.prepareStatement(
                "SELECT id, state, " + OUTCOME_COMMITTED_MS + " FROM scenario_order WHERE id = ANY(?)")) {
            select.setArray(1, array(orders, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    outcomes.put(
                            rows.getString(1),
                            new Outcome(reserved.getOrDefault(rows.getString(1), 0), rows.getString(2), (long)
                                    rows.getDouble(3)));
                }
            }
        }
        return outcomes;
    }

    /** How many of the orders have their shipment booked (the xa mode's downstream consumer). */
    int shipped(List<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        return count(orders, "SELECT COUNT(*) FROM scenario_shipment WHERE order_id = ANY(?)", ids);
    }

    /**
     * When each order's outcome committed (epoch ms), from the orders database alone (0 while it has none): the
     * lab reads it during a fault, when the inventory's server may hang.
     */
    Map<String, Long> completedMillis(List<String> ids) throws SQLException {
        Map<String, Long> completed = new HashMap<>();
        try (PreparedStatement select = orders.prepareStatement(
                "SELECT id, " + OUTCOME_COMMITTED_MS + " FROM scenario_order WHERE id = ANY(?)")) {
            select.setArray(1, array(orders, ids));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    completed.put(rows.getString(1), (long) rows.getDouble(2));
                }
            }
        }
        return completed;
    }

    /**
     * The stock balance of the lab's items: those of {@code skus} where the stock set at the start minus every
     * reservation of the item is not what is available.
     */
    int unbalanced(List<String> skus, long initial) throws SQLException {
        try (PreparedStatement select = inventory.prepareStatement("SELECT COUNT(*) FROM ("
                + "SELECT s.sku FROM scenario_stock s LEFT JOIN scenario_reservation r ON r.sku = s.sku "
                + "WHERE s.sku = ANY(?) GROUP BY s.sku, s.available "
                + "HAVING ? - COALESCE(SUM(r.quantity), 0) <> s.available) off")) {
            select.setArray(1, array(inventory, skus));
            select.setLong(2, initial);
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    /** Reservations of the lab's items whose order the orders database does not have. */
    int orphanReservations(List<String> skus) throws SQLException {
        List<String> reservedFor = new ArrayList<>();
        try (PreparedStatement select =
                inventory.prepareStatement("SELECT DISTINCT order_id FROM scenario_reservation WHERE sku = ANY(?)")) {
            select.setArray(1, array(inventory, skus));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    reservedFor.add(rows.getString(1));
                }
            }
        }
        if (reservedFor.isEmpty()) {
            return 0;
        }
        return reservedFor.size() - count(orders, "SELECT COUNT(*) FROM scenario_order WHERE id = ANY(?)", reservedFor);
    }

    /** Forced WAL writes so far on the orders' (and Courier's) server, or the inventory's. */
    double walSyncs(boolean ordersServer) throws SQLException {
        try (Statement query = (ordersServer ? orders : inventory).createStatement();
                ResultSet rows = query.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
            rows.next();
            return rows.getDouble(1);
        }
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

    /**
     * Prepared transactions on both servers, on the lab's open connections: quick enough to catch the moment
     * between a two-phase commit's prepare and its commit.
     */
    int preparedNow() throws SQLException {
        int prepared = 0;
        for (Connection c : List.of(orders, inventory)) {
            try (Statement query = c.createStatement();
                    ResultSet rows = query.executeQuery("SELECT COUNT(*) FROM pg_prepared_xacts")) {
                rows.next();
                prepared += rows.getInt(1);
            }
        }
        return prepared;
    }

    /** PostgreSQL's prepared transactions not yet committed or rolled back, on both servers. */
    int preparedTransactions() {
        return dev.courier.testing.Postgres.preparedTransactions();
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
        // On the inventory's own server, from its maintenance database: PostgreSQL will not disallow connections
        // to the database a session is in. The lab's own session in the inventory database is spared by the cut.
        try (Connection server = dev.courier.testing.Postgres.inventory("postgres");
                Statement sql = server.createStatement()) {
            sql.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS " + !refuse);
            if (refuse) {
                int own;
                try (Statement query = inventory.createStatement();
                        ResultSet pid = query.executeQuery("SELECT pg_backend_pid()")) {
                    pid.next();
                    own = pid.getInt(1);
                }
                try (PreparedStatement cut = server.prepareStatement(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                + "WHERE datname = ? AND pid <> ? AND usename = current_user AND backend_type = 'client backend'")) {
                    cut.setString(1, database);
                    cut.setInt(2, own);
                    cut.executeQuery().close();
                }
            }
        }
    }

    /** A {@code COUNT(*)} query whose one parameter is {@code ids} as an array. */
    private static int count(Connection c, String sql, List<String> ids) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(sql)) {
            select.setArray(1, array(c, ids));
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static Array array(Connection c, List<String> ids) throws SQLException {
        return c.createArrayOf("varchar", ids.toArray());
    }

    /** A database on Courier's (and the orders') server. */
    static Connection connect(String database) throws SQLException {
        return dev.courier.testing.Postgres.courier(database);
    }

    @Override
    public void close() throws SQLException {
        orders.close();
        inventory.close();
    }
}
