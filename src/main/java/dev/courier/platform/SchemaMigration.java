package dev.courier.platform;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Brings the database schema to the version this build expects, at start-up, before any request is served.
 *
 * <p>The DDL is explicit and versioned: {@code db/migration/<dialect>/V<n>__<what>.sql} (beside an empty
 * {@code flyway.location}, which Flyway needs to find the folder in Liberty), applied by Flyway. A
 * released script is never edited: Flyway keeps each applied script's checksum in {@code courier_schema_history}
 * and refuses to start against a database whose applied scripts differ from the build's. All pending scripts run
 * in one transaction (DDL is transactional on both Derby and PostgreSQL) under Flyway's lock, so two servers
 * starting together apply each version once, and a failing script leaves the schema as it was. A failure stops
 * the application from starting.
 *
 * <p>A database migrated by Courier's earlier runner (versions in {@code courier_schema_version}, no history
 * table) is taken over: Flyway records a baseline at that runner's newest version and applies only the scripts
 * after it; the old table stays, untouched. A database that holds other tables (the application's own) and no
 * Courier table gets a baseline at version 0, then every script.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigration {

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());
    /** Flyway's history of Courier's own scripts. */
    public static final String HISTORY_TABLE = "courier_schema_history";
    /** Where the runner before Flyway kept the versions it applied: read once, to take a database over. */
    static final String LEGACY_VERSION_TABLE = "courier_schema_version";
    /** The schema of the queue's SQL API on PostgreSQL (db/migration/postgresql/V14), apart from the tables. */
    static final String SQL_API_SCHEMA = "courier";

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    private volatile int version;
    private volatile Dialect dialect;

    @PostConstruct
    void migrate() {
        Applied applied = migrate(dataSource, "db/migration", HISTORY_TABLE);
        dialect = applied.dialect();
        version = applied.version();
    }

    /**
     * Brings another database to Courier's schema (a queue database of {@code courier.queue.databases}: an
     * application's, whose own tables stay as they are), outside any caller's transaction (this bean's are its own).
     */
    public Applied migrateOther(DataSource other) {
        return migrate(other, "db/migration", HISTORY_TABLE);
    }

    /** What {@link #migrate(DataSource, String, String)} left a database at. */
    public record Applied(Dialect dialect, int version) {}

    /**
     * Brings the database behind {@code dataSource} to the newest script under {@code root}
     * ({@code root/<dialect>/V<n>__<what>.sql}), recording them in {@code historyTable}, as described above (a
     * legacy {@code courier_schema_version} is taken over only for {@link #HISTORY_TABLE}). Other capabilities with
     * scripts of their own (the lab's) migrate with this too, each with a history table of its own.
     *
     * @throws IllegalArgumentException when {@code historyTable} is not a plain lower-case SQL name
     * @throws IllegalStateException when a script fails or an applied script was edited; nothing of the run is left
     */
    public static Applied migrate(DataSource dataSource, String root, String historyTable) {
        if (!historyTable.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a history table name: " + historyTable);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return migrateOnce(dataSource, root, historyTable);
            } catch (IllegalStateException e) {
                // A pooled connection that outlived a database restart fails once; the pool then drops it.
                Optional<String> state = sqlState(e);
                if (attempt == 3
                        || state.isEmpty()
                        || !(state.get().startsWith("08") || state.get().startsWith("57P"))) {
                    throw e;
                }
                LOG.warning(
                        "schema migration of " + root + " met a broken connection (" + e.getMessage() + "); retrying");
            }
        }
    }

    private static Applied migrateOnce(DataSource dataSource, String root, String historyTable) {
        Dialect dialect;
        int baseline;
        Optional<String> schema;
        try (Connection connection = dataSource.getConnection()) {
            dialect = Dialect.of(connection);
            schema = dialect == Dialect.POSTGRESQL ? postgresSchema(connection, historyTable) : Optional.empty();
            baseline = HISTORY_TABLE.equals(historyTable) && !tableExists(connection, historyTable)
                    ? legacyVersion(connection).orElse(0)
                    : 0;
        } catch (SQLException e) {
            throw new IllegalStateException("schema migration of " + root + " failed: " + e.getMessage(), e);
        }
        String location = "classpath:" + root + "/" + dialect.folder();
        FluentConfiguration configuration = Flyway.configure(SchemaMigration.class.getClassLoader())
                .dataSource(dataSource)
                // Liberty's class loader cannot list a folder Flyway has not found a file in: each location holds
                // an empty flyway.location (Flyway's own answer for WebSphere), and a location that resolves no
                // script fails rather than migrating nothing.
                .locations(location)
                .failOnMissingLocations(true)
                .table(historyTable)
                // Courier's tables may share a database with the application's: a schema with other tables and
                // no history starts from a baseline (the legacy runner's newest version, or 0: every script).
                .baselineOnMigrate(true)
                .baselineVersion(MigrationVersion.fromVersion(Integer.toString(baseline)))
                .baselineDescription(baseline > 0 ? "taken over from " + LEGACY_VERSION_TABLE : "baseline")
                .group(true)
                .cleanDisabled(true)
                .validateMigrationNaming(true);
        schema.ifPresent(configuration::defaultSchema);
        Flyway flyway = configuration.load();
        try {
            if (flyway.info().all().length == 0) {
                throw new IllegalStateException("schema migration of " + root + " found no script for " + dialect
                        + " (classpath:" + root + "/" + dialect.folder() + ")");
            }
            // One scan of the scripts and the history for the check above, one for the migration: its result says
            // where the schema ended (the version it reached, or where it was when nothing was pending).
            MigrateResult result = flyway.migrate();
            String at = result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion;
            int version = at == null ? 0 : Integer.parseInt(at);
            LOG.info(() -> "Schema " + root + " of " + dialect + " database at version " + version);
            return new Applied(dialect, version);
        } catch (FlywayException e) {
            throw new IllegalStateException("schema migration of " + root + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The schema Courier's tables are in, on PostgreSQL: the first on the connection's search path that holds
     * {@code historyTable}, else the first that is not {@value #SQL_API_SCHEMA}. Not simply the current schema: the
     * SQL API's functions live in a schema of that name, and a role of the same name (the usual "courier") finds it
     * first on the default path {@code "$user", public}, where Flyway would then look for its history in vain.
     */
    private static Optional<String> postgresSchema(Connection connection, String historyTable) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT p.s FROM unnest(current_schemas(false)) "
                + "WITH ORDINALITY AS p (s, o) ORDER BY EXISTS (SELECT 1 FROM pg_tables t WHERE t.schemaname = p.s "
                + "AND t.tablename = ?) DESC, p.s = ?, p.o LIMIT 1")) {
            query.setString(1, historyTable);
            query.setString(2, SQL_API_SCHEMA);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
            }
        }
    }

    /** The newest version the runner before Flyway recorded, if this database has its table. */
    private static Optional<Integer> legacyVersion(Connection connection) throws SQLException {
        if (!tableExists(connection, LEGACY_VERSION_TABLE)) {
            return Optional.empty();
        }
        try (Statement query = connection.createStatement();
                ResultSet rows = query.executeQuery("SELECT MAX(version) FROM " + LEGACY_VERSION_TABLE)) {
            rows.next();
            int newest = rows.getInt(1);
            LOG.info(() -> "Taking over the schema at version " + newest + " from " + LEGACY_VERSION_TABLE);
            return Optional.of(newest);
        }
    }

    private static boolean tableExists(Connection connection, String table) throws SQLException {
        // Derby stores unquoted names in upper case, PostgreSQL in lower case.
        for (String name : new String[] {table, table.toUpperCase(Locale.ROOT)}) {
            try (ResultSet tables = connection.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Optional<String> sqlState(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                return Optional.of(sql.getSQLState());
            }
        }
        return Optional.empty();
    }

    /** The schema version in force; 0 until start-up migration has finished. */
    @Lock(LockType.READ) // every clock reading asks: never behind a migration of another database
    public int version() {
        return version;
    }

    /** The dialect of the application database. */
    @Lock(LockType.READ)
    public Dialect dialect() {
        return dialect;
    }
}
