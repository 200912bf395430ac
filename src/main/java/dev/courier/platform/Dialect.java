package dev.courier.platform;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The databases Courier runs on. Everything database-specific (DDL, claim queries) is chosen by this value,
 * in as few places as possible, so that the embedded default can be swapped without touching the rest.
 */
public enum Dialect {
    /** Apache Derby, embedded: the try-it-out default. */
    DERBY("derby"),
    /** PostgreSQL: what users deploy and what benchmarks use. */
    POSTGRESQL("postgresql");

    private final String folder;

    Dialect(String folder) {
        this.folder = folder;
    }

    /** The folder under {@code db/migration/} that holds this dialect's DDL. */
    public String folder() {
        return folder;
    }

    /** The dialect of the database behind {@code connection}. */
    public static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String name = product.toLowerCase(Locale.ROOT);
        if (name.contains("derby")) {
            return DERBY;
        }
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        throw new IllegalStateException("Courier does not support the database " + product);
    }
}
