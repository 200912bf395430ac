package dev.courier.platform;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@code @Transactional} bean whose {@link ProblemException}s (an unknown queue, a stale lease, a gone
 * message) roll the transaction back as an EJB application exception does, without an FFDC incident. Pair it
 * with {@code @Transactional(dontRollbackOn = ProblemException.class)}: Liberty's transaction interceptor
 * writes an incident file for every runtime exception it rolls back for, and a 404 or a 409 is an answer, not
 * an incident; this binding's interceptor, inside the transaction, marks it rollback-only itself.
 */
@Inherited
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ProblemsRollBack {}
