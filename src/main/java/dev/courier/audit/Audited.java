package dev.courier.audit;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a REST operation as administrative: each call is recorded in the {@link AuditTrail} with its caller,
 * its path and its answer's status, once the answer is known (a refused or failed call too).
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Audited {

    /** The action's name, e.g. {@code queue.drop}. */
    String value() default "";
}
