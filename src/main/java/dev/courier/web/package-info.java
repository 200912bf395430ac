/**
 * The REST entry point: the JAX-RS application under {@code /api}. Resources live in the package of the
 * capability they serve; errors of all of them are mapped to problem bodies by {@link dev.courier.platform.ProblemMapper}.
 */
package dev.courier.web;
