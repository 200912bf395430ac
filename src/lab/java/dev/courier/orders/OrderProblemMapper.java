package dev.courier.orders;

import jakarta.json.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every failure as a problem body: an {@link OrderProblem} with its own status, JAX-RS's own (404, 405, 415) with
 * theirs, anything else 500 without its stack trace, which the log keeps.
 */
@Provider
public class OrderProblemMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = Logger.getLogger(OrderProblemMapper.class.getName());

    @Override
    public Response toResponse(Throwable thrown) {
        OrderProblem problem = problem(thrown);
        if (problem == null && thrown instanceof WebApplicationException web) {
            int status = web.getResponse().getStatus();
            problem = new OrderProblem(status, web.getResponse().getStatusInfo().getReasonPhrase(), web.getMessage());
        }
        if (problem == null) {
            LOG.log(Level.WARNING, "an order request failed", thrown);
            problem = new OrderProblem(500, "Internal error", "the order was not placed; see the orders service's log");
        }
        return Response.status(problem.status())
                .type("application/problem+json")
                .entity(Json.createObjectBuilder()
                        .add("type", "about:blank")
                        .add("title", problem.title())
                        .add("status", problem.status())
                        .add("detail", String.valueOf(problem.getMessage()))
                        .build())
                .build();
    }

    /** The problem itself, or the one an EJB wrapped. */
    private static OrderProblem problem(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof OrderProblem problem) {
                return problem;
            }
        }
        return null;
    }
}
