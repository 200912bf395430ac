package dev.courier.platform;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Brings the database schema to the version this build expects, at start-up, before any request is served.
 *
 * <p>The DDL is explicit and versioned: {@code db/migration/<dialect>/index.txt} lists the scripts in order.
 * All pending scripts run in one local transaction under an exclusive lock on {@code courier_schema_version},
 * so two servers starting together apply each version once, and a failing script leaves the schema as it was
 * (DDL is transactional on both Derby and PostgreSQL). A failure stops the application from starting.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaMigration {

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());
    static final String VERSION_TABLE = "courier_schema_version";

    @Resource(lookup = "jdbc/courier")
    private DataSource dataSource;

    @jakarta.inject.Inject
    private Clock clock;

    private volatile int version;
    private volatile Dialect dialect;

    @PostConstruct
    void migrate() {
        Applied applied = migrate(dataSource, "db/migration", clock);
        dialect = applied.dialect();
        version = applied.version();
    }

    /** What {@link #migrate(DataSource, String, Clock)} left a database at. */
    public record Applied(Dialect dialect, int version) {}

    /**
     * Brings the database behind {@code dataSource} to the newest version under {@code root}
     * ({@code root/<dialect>/index.txt}), as described above. Other capabilities with a database of their own
     * (the lab's inventory) migrate it with this too.
     *
     * @throws IllegalStateException when a script fails; nothing of the failed run is left
     */
    public static Applied migrate(DataSource dataSource, String root, Clock clock) {
        return migrate(dataSource, root, VERSION_TABLE, clock);
    }

    /**
     * As {@link #migrate(DataSource, String, Clock)}, keeping the versions in {@code versionTable}: for a second
     * set of scripts in a database that already has Courier's (the lab's tables beside the product's).
     *
     * @throws IllegalArgumentException when {@code versionTable} is not a plain lower-case SQL name
     */
    public static Applied migrate(DataSource dataSource, String root, String versionTable, Clock clock) {
        if (!versionTable.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a version table name: " + versionTable);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return migrateOnce(dataSource, root, versionTable, clock);
            } catch (IllegalStateException e) {
                // A pooled connection that outlived a database restart fails once; the pool then drops it.
                if (attempt == 3
                        || !(e.getCause() instanceof SQLException sql)
                        || sql.getSQLState() == null
                        || !(sql.getSQLState().startsWith("08")
                                || sql.getSQLState().startsWith("57P"))) {
                    throw e;
                }
                LOG.warning("schema migration of " + root + " met a broken connection (" + sql.getMessage()
                        + "); retrying");
            }
        }
    }

    private static Applied migrateOnce(DataSource dataSource, String root, String table, Clock clock) {
        try (Connection connection = dataSource.getConnection()) {
            Dialect dialect = Dialect.of(connection);
            List<Migration> migrations = load(root, dialect);
            createVersionTableIfMissing(connection, table);
            connection.setAutoCommit(false);
            int current;
            try (Statement lock = connection.createStatement()) {
                lock.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
                current = currentVersion(connection, table);
                for (Migration migration : migrations) {
                    if (migration.version() > current) {
                        apply(connection, migration, table, clock);
                        current = migration.version();
                    }
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
            int version = current;
            LOG.info(() -> "Schema " + root + " of " + dialect + " database at version " + version);
            return new Applied(dialect, version);
        } catch (SQLException e) {
            throw new IllegalStateException("schema migration of " + root + " failed: " + e.getMessage(), e);
        }
    }

    /** The schema version in force; 0 until start-up migration has finished. */
    public int version() {
        return version;
    }

    /** The dialect of the application database. */
    public Dialect dialect() {
        return dialect;
    }

    private static void apply(Connection connection, Migration migration, String table, Clock clock)
            throws SQLException {
        LOG.info(() -> "Applying schema version " + migration.version() + ": " + migration.description());
        try (Statement ddl = connection.createStatement()) {
            for (String sql : migration.statements()) {
                ddl.execute(sql);
            }
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + table + " (version, description, applied_at) VALUES (?, ?, ?)")) {
            insert.setInt(1, migration.version());
            insert.setString(2, migration.description());
            insert.setTimestamp(3, Timestamp.from(clock.instant()), Columns.utc());
            insert.executeUpdate();
        }
    }

    private static int currentVersion(Connection connection, String table) throws SQLException {
        try (Statement query = connection.createStatement();
                ResultSet rows = query.executeQuery("SELECT MAX(version) FROM " + table)) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static void createVersionTableIfMissing(Connection connection, String table) throws SQLException {
        if (tableExists(connection, table)) {
            return;
        }
        try (Statement ddl = connection.createStatement()) {
            ddl.execute(
                    "CREATE TABLE " + table
                            + " (version INT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL, applied_at TIMESTAMP NOT NULL)");
        } catch (SQLException e) {
            if (!tableExists(connection, table)) { // another server created it between our check and our CREATE
                throw e;
            }
        }
    }

    private static boolean tableExists(Connection connection, String table) throws SQLException {
        // Derby stores unquoted names in upper case, PostgreSQL in lower case.
        for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT)}) {
            try (ResultSet tables = connection.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
                if (tables.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    static List<Migration> load(Dialect dialect) {
        return load("db/migration", dialect);
    }

    static List<Migration> load(String root, Dialect dialect) {
        String folder = root + "/" + dialect.folder() + "/";
        List<Migration> migrations = new ArrayList<>();
        for (String line : read(folder + "index.txt").split("\\R")) {
            String file = line.strip();
            if (file.isEmpty() || file.startsWith("#")) {
                continue;
            }
            Migration migration = Migration.parse(file, read(folder + file));
            if (!migrations.isEmpty()
                    && migration.version()
                            != migrations.get(migrations.size() - 1).version() + 1) {
                throw new IllegalStateException(folder + "index.txt: versions must be consecutive, found " + file);
            }
            migrations.add(migration);
        }
        return migrations;
    }

    private static String read(String resource) {
        try (InputStream in = SchemaMigration.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
