package dev.courier.orders;

import dev.courier.queue.jdbc.CourierQueue;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The queue library on the orders database: each call enlists in the caller's JTA transaction. */
@ApplicationScoped
public class QueueWiring {

    @Produces
    @Singleton
    CourierQueue queue() {
        return CourierQueue.jndi(OrderBook.DATABASE);
    }
}
