package dev.courier.lab;

import dev.courier.bench.ProcessCpu;
import java.sql.SQLException;

/**
 * What a run cost per order: forced WAL writes on each PostgreSQL server ({@code pg_stat_wal.wal_sync}: the
 * fsyncs a commit waits for, fewer than commits when group commit shares one) and CPU per process, from
 * {@code /proc}. The broker's journal syncs and Liberty's transaction log are not counted: neither exposes a
 * counter here. Divided by the run's orders, accepted or not, after every outcome came.
 */
record Costs(
        double ordersSyncs,
        double inventorySyncs,
        double libertyMillis,
        double ordersPostgresMillis,
        double inventoryPostgresMillis,
        double brokerMillis,
        double clientMillis) {

    /** Counters now, to subtract. */
    static Costs now(LabDatabases databases) throws SQLException {
        return new Costs(
                databases.walSyncs(true),
                databases.walSyncs(false),
                ProcessCpu.liberty("courier"),
                ProcessCpu.postgresCluster("main"),
                ProcessCpu.postgresCluster("inventory"),
                ProcessCpu.broker(),
                ProcessCpu.client());
    }

    /** What happened since {@code before}, per order. */
    Costs perOrder(Costs before, int orders) {
        double n = Math.max(1, orders);
        return new Costs(
                (ordersSyncs - before.ordersSyncs) / n,
                (inventorySyncs - before.inventorySyncs) / n,
                (libertyMillis - before.libertyMillis) / n,
                (ordersPostgresMillis - before.ordersPostgresMillis) / n,
                (inventoryPostgresMillis - before.inventoryPostgresMillis) / n,
                (brokerMillis - before.brokerMillis) / n,
                (clientMillis - before.clientMillis) / n);
    }

    double cpuMillis() {
        return libertyMillis + ordersPostgresMillis + inventoryPostgresMillis + brokerMillis;
    }
}
