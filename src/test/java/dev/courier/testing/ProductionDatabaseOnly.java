package dev.courier.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A long test class of the reliable service's failure paths (a backlog, producers and consumers that fail, the
 * horizon): it runs on the production database, PostgreSQL, in CI's second phase, and the embedded database's
 * phase skips it (CI's time; the service's shorter tests still run on both). Decided before Arquillian deploys
 * anything, as {@link DatabaseIndependent} is. Run it alone with {@code -Dcourier.db=postgres}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIfSystemProperty(
        named = "courier.db",
        matches = "postgres",
        disabledReason = "a long failure-path test: runs on PostgreSQL, the production database")
public @interface ProductionDatabaseOnly {}
