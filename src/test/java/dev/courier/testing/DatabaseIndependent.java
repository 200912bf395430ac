package dev.courier.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * A test class whose subject does not depend on the database (authentication, the broker's accounts, tracing, the
 * API's contract): it runs once, in the embedded database's phase that {@code mvn verify} is, and CI's second phase
 * on PostgreSQL skips it rather than repeating it (CI's time goes to what differs between the databases).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@DisabledIfSystemProperty(
        named = "courier.db",
        matches = "postgres",
        disabledReason = "does not depend on the database: runs in the embedded database's phase only")
public @interface DatabaseIndependent {}
