package dev.courier.testing.queueapp;

import dev.courier.queue.jdbc.CourierQueue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** How an application points the library at its datasource: one producer, by the datasource's JNDI name. */
@ApplicationScoped
public class QueueWiring {

    /** The orders database (here the test server's {@code jdbc/courier}, the database that holds the queues). */
    @Produces
    @Singleton
    CourierQueue queue() {
        return CourierQueue.jndi("jdbc/courier");
    }
}
