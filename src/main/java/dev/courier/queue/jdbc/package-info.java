/**
 * The transactional queue for your own application, in your own transaction: {@link dev.courier.queue.jdbc.CourierQueue}
 * calls the SQL API (the functions of the schema {@code courier} on PostgreSQL) on your connection, so a send or an
 * acknowledgement commits or rolls back with your other writes, in Jakarta EE (your JTA datasource) or on a plain
 * JDBC connection (Spring, anything else). It needs the JDK and a PostgreSQL driver only; the build packages it
 * alone as the {@code queue} jar ({@code target/courier-queue.jar}).
 */
package dev.courier.queue.jdbc;
