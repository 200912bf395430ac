package dev.courier.testing.queueapp;

import dev.courier.queue.jdbc.CourierQueue;
import dev.courier.queue.jdbc.Received;
import dev.courier.queue.jdbc.Send;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * An application as its own process, on plain JDBC and the queue library ({@code courier-queue.jar} on its class
 * path, nothing else of Courier's): one thread places orders 1..n, each order's row and its keyed message in one
 * transaction (an order already there is skipped, so a restarted process goes on where the killed one stopped);
 * another works the queue off, each message's effect and its acknowledgement in one transaction. QueueLibraryKillIT
 * kills it with SIGKILL mid-flow and starts it again. Arguments: JDBC URL, user, password, queue, n.
 */
public final class OrdersWorker {

    private OrdersWorker() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String password = args[2];
        String queue = args[3];
        int orders = Integer.parseInt(args[4]);
        Thread sender = new Thread(() -> place(url, user, password, queue, orders));
        sender.start();
        try (Connection connection = DriverManager.getConnection(url, user, password)) {
            connection.setAutoCommit(false);
            CourierQueue work = CourierQueue.on(connection);
            while (true) {
                for (Received message : work.receive(queue, 10, Duration.ofSeconds(5))) {
                    try (PreparedStatement effect =
                            connection.prepareStatement("INSERT INTO kill_effect (order_no) VALUES (?)")) {
                        effect.setInt(1, Integer.parseInt(message.payload().replaceAll("\\D", "")));
                        effect.executeUpdate();
                    }
                    work.ack(message.leaseToken());
                }
                connection.commit();
                Thread.sleep(5);
            }
        }
    }

    private static void place(String url, String user, String password, String queue, int orders) {
        try (Connection connection = DriverManager.getConnection(url, user, password)) {
            connection.setAutoCommit(false);
            CourierQueue send = CourierQueue.on(connection);
            try (PreparedStatement order = connection.prepareStatement(
                    "INSERT INTO kill_order (order_no) VALUES (?) ON CONFLICT DO NOTHING")) {
                for (int n = 1; n <= orders; n++) {
                    order.setInt(1, n);
                    if (order.executeUpdate() == 1) {
                        send.send(queue, Send.of("{\"order\": " + n + "}").withKey("order-" + n));
                    }
                    connection.commit();
                }
            }
            System.out.println("placed " + orders);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
