package dev.courier.bench;

import dev.courier.queue.Delivery;
import dev.courier.queue.QueueName;
import dev.courier.queue.TransactionalQueue;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.util.List;

/** One consumer step as an application would write it: receive a batch and ack it (one batch of deletes), in one transaction. */
@Stateless
public class BenchConsumer {

    @Inject
    private TransactionalQueue queue;

    /** @return how many messages were received and acknowledged */
    public int receiveAndAck(QueueName name, int max) {
        List<Delivery> deliveries = queue.receive(name, max);
        if (!deliveries.isEmpty()) {
            queue.ackAll(deliveries.stream().map(Delivery::leaseToken).toList());
        }
        return deliveries.size();
    }
}
