package dev.courier.testing.queueapp;

import dev.courier.queue.jdbc.QueueException;
import jakarta.inject.Inject;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;

/**
 * An application of its own ({@code orders-app.war}), not Courier: it places orders and works them off in its own
 * JTA transactions, sending and acknowledging with the queue library ({@code courier-queue.jar}) on its datasource.
 * The test's handle on it: {@code POST /orders-app/shop/<action>/<queue or id>}, each call one business
 * transaction; a refused one answers 409 with the reason.
 */
@WebServlet("/shop/*")
public class OrdersServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Inject
    private transient OrderDesk desk;

    private static Duration lease(HttpServletRequest request) {
        String millis = request.getParameter("leaseMillis");
        return millis == null ? null : Duration.ofMillis(Long.parseLong(millis));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String[] path = request.getPathInfo().substring(1).split("/");
        boolean fail = Boolean.parseBoolean(request.getParameter("fail"));
        try {
            String result = switch (path[0]) {
                case "orders" -> desk.place(path[1], fail);
                case "work" -> desk.work(path[1], lease(request), fail);
                case "lease" -> desk.lease(path[1], lease(request));
                case "ack" -> {
                    desk.complete(path[1], request.getParameter("token"), fail);
                    yield "acknowledged";
                }
                default -> throw new IllegalArgumentException("no action " + path[0]);
            };
            if (result == null) {
                response.setStatus(204);
            } else {
                response.setContentType("text/plain");
                response.getWriter().write(result);
            }
        } catch (QueueException e) {
            response.setStatus(409);
            response.getWriter().write(e.reason().name());
        } catch (IllegalStateException e) {
            response.setStatus(409);
            response.getWriter().write("ROLLED_BACK");
        }
    }
}
