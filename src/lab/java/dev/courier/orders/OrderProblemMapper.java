package dev.courier.orders;

import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.json.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every failure as an {@code application/problem+json} body, never a stack trace: an {@link OrderProblem} with its
 * own status; JAX-RS's own refusals (404, 405, 415, 403 for a missing role) with theirs and their headers, in words
 * that name nothing of the framework; a database or broker that cannot be reached 503 (nothing was committed:
 * retry); anything else 500 with a reference the log keeps with the stack trace.
 */
@Provider
public class OrderProblemMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = Logger.getLogger(OrderProblemMapper.class.getName());

    @Override
    public Response toResponse(Throwable thrown) {
        OrderProblem problem = find(thrown, OrderProblem.class);
        if (problem != null) {
            return answer(Response.status(problem.status()), problem.status(), problem.title(), problem.getMessage());
        }
        if (thrown instanceof WebApplicationException web && web.getResponse().getStatus() < 500) {
            Response.StatusType status = web.getResponse().getStatusInfo();
            // From the framework's own answer, for its headers (Allow on a 405, a challenge on a 401).
            return answer(
                    Response.fromResponse(web.getResponse()),
                    status.getStatusCode(),
                    status.getReasonPhrase(),
                    "The request was refused: " + status.getReasonPhrase() + ".");
        }
        if (find(thrown, JMSException.class) != null
                || find(thrown, JMSRuntimeException.class) != null
                || unreachable(find(thrown, SQLException.class))) {
            LOG.log(Level.WARNING, "a database or the broker cannot be reached", thrown);
            return answer(
                    Response.status(503),
                    503,
                    "Service unavailable",
                    "A database or the broker cannot be reached; nothing was committed. Retry later.");
        }
        String reference = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "an order request failed, reference " + reference, thrown);
        return answer(
                Response.status(500),
                500,
                "Internal error",
                "The request failed; the orders service's log has the details under reference " + reference + ".");
    }

    private static Response answer(Response.ResponseBuilder response, int status, String title, String detail) {
        return response.type("application/problem+json")
                .entity(Json.createObjectBuilder()
                        .add("type", "about:blank")
                        .add("title", title)
                        .add("status", status)
                        .add("detail", String.valueOf(detail))
                        .build()
                        .toString())
                .build();
    }

    /** The first {@code type} in {@code thrown}'s chain of causes (an EJB wraps what its bean threw). */
    private static <T extends Throwable> T find(Throwable thrown, Class<T> type) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** Connection failures (SQLState class 08) and a server shutting down or starting (57P01..57P03). */
    private static boolean unreachable(SQLException sql) {
        if (sql == null) {
            return false;
        }
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        return state.startsWith("08")
                || state.startsWith("57P")
                || sql instanceof SQLTransientConnectionException
                || sql instanceof SQLNonTransientConnectionException
                || sql instanceof SQLRecoverableException;
    }
}
