/**
 * MicroProfile Health checks, one per concern, each probing its dependency for real: readiness asks the
 * database and the broker, start-up reports the schema migration. {@code /health/ready} is DOWN while either
 * dependency is unreachable, and UP again once it returns.
 */
package dev.courier.health;
