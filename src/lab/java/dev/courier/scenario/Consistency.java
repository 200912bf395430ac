package dev.courier.scenario;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks the scenario's invariant from the two databases themselves (not from any mechanism's counters): every
 * order ends with exactly one reservation or a rejection, never both, never neither, and stock never goes
 * negative; in XA mode, every shipment belongs to an order that committed.
 */
@ApplicationScoped
public class Consistency {

    /**
     * Counts for one mode (or all).
     *
     * @param reserved orders with a reservation
     * @param rejected orders marked REJECTED
     * @param pending orders with neither yet (the asynchronous modes' inventory has not answered)
     * @param missing orders marked RESERVED that have no reservation
     * @param duplicated orders with more than one reservation, or rejected and reserved
     * @param orphaned reservations whose order does not exist
     */
    public record Counts(
            long orders, long reserved, long rejected, long pending, long missing, long duplicated, long orphaned) {

        Counts plus(Counts o) {
            return new Counts(
                    orders + o.orders,
                    reserved + o.reserved,
                    rejected + o.rejected,
                    pending + o.pending,
                    missing + o.missing,
                    duplicated + o.duplicated,
                    orphaned + o.orphaned);
        }
    }

    /**
     * XA mode's downstream step ({@link XaOrderPlacedListener}), read from the orders database.
     *
     * @param shipped orders with a shipment (each has one at most: the table's key)
     * @param orphaned shipments whose order does not exist: an event of an order that rolled back, never expected
     *     (but for an instant: two-phase commit ends an order's branches one by one, and its event can be consumed
     *     before the orders database's branch has committed)
     */
    public record Shipping(long shipped, long orphaned) {}

    /** The check's result: counts per mode, items whose stock is negative, and XA mode's shipments. */
    public record Report(Map<Mode, Counts> modes, long negativeStock, Shipping shipping) {

        public Counts total() {
            return modes.values().stream().reduce(new Counts(0, 0, 0, 0, 0, 0, 0), Counts::plus);
        }
    }

    @Inject
    private OrderBook book;

    @Inject
    private Inventory inventory;

    public Report check() {
        try (Connection orders = book.dataSource().getConnection();
                Connection stock = inventory.dataSource().getConnection()) {
            Map<String, long[]> reservations = new HashMap<>(); // order id -> {count, mode ordinal}
            try (PreparedStatement select = stock.prepareStatement(
                            "SELECT order_id, mode, COUNT(*) FROM scenario_reservation GROUP BY order_id, mode");
                    ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    long[] entry = reservations.computeIfAbsent(rows.getString(1), id ->
                            new long[] {0, Mode.of(modeOf(rows)).ordinal()});
                    entry[0] += rows.getLong(3);
                }
            }
            Map<Mode, long[]> counts =
                    new EnumMap<>(Mode.class); // orders reserved rejected pending missing duplicated orphaned
            for (Mode mode : Mode.values()) {
                counts.put(mode, new long[7]);
            }
            try (PreparedStatement select = orders.prepareStatement("SELECT id, mode, state FROM scenario_order");
                    ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    long[] c = counts.get(Mode.of(rows.getString(2)));
                    long[] reserved = reservations.remove(rows.getString(1));
                    long n = reserved == null ? 0 : reserved[0];
                    OrderState state = OrderState.valueOf(rows.getString(3));
                    c[0]++;
                    if (n > 0) {
                        c[1]++;
                    }
                    if (state == OrderState.REJECTED) {
                        c[2]++;
                    }
                    if (n == 0 && state == OrderState.PLACED) {
                        c[3]++;
                    }
                    if (n == 0 && state == OrderState.RESERVED) {
                        c[4]++;
                    }
                    if (n > 1 || (n > 0 && state == OrderState.REJECTED)) {
                        c[5]++;
                    }
                }
            }
            for (long[] orphan : reservations.values()) {
                counts.get(Mode.values()[(int) orphan[1]])[6]++;
            }
            Map<Mode, Counts> modes = new EnumMap<>(Mode.class);
            counts.forEach((mode, c) -> modes.put(mode, new Counts(c[0], c[1], c[2], c[3], c[4], c[5], c[6])));
            long negative;
            try (PreparedStatement select =
                            stock.prepareStatement("SELECT COUNT(*) FROM scenario_stock WHERE available < 0");
                    ResultSet rows = select.executeQuery()) {
                rows.next();
                negative = rows.getLong(1);
            }
            return new Report(modes, negative, shipping(orders));
        } catch (SQLException e) {
            throw new IllegalStateException("the consistency check failed", e);
        }
    }

    private static Shipping shipping(Connection orders) throws SQLException {
        try (PreparedStatement select = orders.prepareStatement("SELECT COUNT(o.id), COUNT(*) FROM scenario_shipment s "
                        + "LEFT JOIN scenario_order o ON o.id = s.order_id");
                ResultSet rows = select.executeQuery()) {
            rows.next();
            return new Shipping(rows.getLong(1), rows.getLong(2) - rows.getLong(1));
        }
    }

    private static String modeOf(ResultSet rows) {
        try {
            return rows.getString(2);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
