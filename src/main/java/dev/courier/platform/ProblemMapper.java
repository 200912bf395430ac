package dev.courier.platform;

import jakarta.ejb.EJBException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.json.JsonException;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.ProcessingException;
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
 * Turns every exception that reaches the REST layer into an RFC 9457 {@code application/problem+json} body
 * with {@code type}, {@code title}, {@code status} and {@code detail}. A caller never sees a stack trace: an
 * unreachable broker or database (connection failure) answers 503, other unexpected failures 500 with a
 * reference that is also logged, with the stack trace, at SEVERE.
 */
@Provider
public class ProblemMapper implements ExceptionMapper<Throwable> {

    public static final String PROBLEM_JSON = "application/problem+json";
    /** What a 401 says, whoever answers it (the container or a resource). */
    public static final String UNAUTHORIZED =
            "Authentication is required: send credentials (HTTP Basic or a bearer token).";
    /** What a 403 says: what the caller lacks, nothing about what exists. */
    public static final String FORBIDDEN = "The authenticated caller does not hold a role that may do this.";

    private static final Logger LOG = Logger.getLogger(ProblemMapper.class.getName());

    @Override
    public Response toResponse(Throwable thrown) {
        ProblemException problem = find(thrown, ProblemException.class);
        if (problem != null) {
            return respond(
                    problem.status(), problem.type(), problem.title(), problem.getMessage(), problem.extensions());
        }
        if (thrown instanceof WebApplicationException web) {
            Response.StatusType status = web.getResponse().getStatusInfo();
            if (status.getStatusCode() < 500) {
                return respond(
                        status.getStatusCode(), "about:blank", status.getReasonPhrase(), clientDetail(web, status));
            }
        }
        if (find(thrown, JsonbException.class) != null
                || find(thrown, JsonException.class) != null
                || thrown instanceof ProcessingException) {
            return respond(
                    400,
                    "urn:courier:problem:malformed-body",
                    "Malformed request body",
                    "The request body is not valid JSON of the expected shape.");
        }
        if (find(thrown, JMSException.class) != null || find(thrown, JMSRuntimeException.class) != null) {
            LOG.log(Level.WARNING, "broker unavailable", thrown);
            return respond(
                    503,
                    "urn:courier:problem:broker-unavailable",
                    "Broker unavailable",
                    "The message broker did not answer; nothing was committed. Retry later.");
        }
        if (databaseUnreachable(find(thrown, SQLException.class))) {
            LOG.log(Level.WARNING, "database unavailable", thrown);
            return respond(
                    503,
                    "urn:courier:problem:database-unavailable",
                    "Database unavailable",
                    "The database connection failed; nothing was committed. Retry later.");
        }
        String reference = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "Unexpected failure, reference " + reference, thrown);
        return respond(
                500,
                "about:blank",
                "Internal Server Error",
                "The request failed on the server; the server log has the details under reference " + reference + ".");
    }

    private static String clientDetail(WebApplicationException web, Response.StatusType status) {
        // The framework's own messages name its internals; say what the caller can act on instead.
        return switch (status.getStatusCode()) {
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            case 404 -> "There is no resource at this path.";
            case 405 -> "This resource does not accept that HTTP method.";
            case 406 -> "This resource answers with application/json only.";
            case 415 -> "This resource accepts application/json only.";
            default -> "The request was refused: " + status.getReasonPhrase() + ".";
        };
    }

    /** Connection failures (SQLState class 08) and a server shutting down or starting (57P01..57P03). */
    private static boolean databaseUnreachable(SQLException sql) {
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

    static Response respond(int status, String type, String title, String detail) {
        return respond(status, type, title, detail, java.util.Map.of());
    }

    static Response respond(
            int status, String type, String title, String detail, java.util.Map<String, String> extensions) {
        return Response.status(status)
                .type(PROBLEM_JSON)
                .entity(body(status, type, title, detail, extensions))
                .build();
    }

    /** A problem answer written outside JAX-RS (the servlet container's errors and filters). */
    public static void write(
            jakarta.servlet.http.HttpServletResponse response, int status, String type, String title, String detail)
            throws java.io.IOException {
        response.setStatus(status);
        response.setContentType(PROBLEM_JSON);
        response.getWriter().write(body(status, type, title, detail, java.util.Map.of()));
    }

    /** The problem body of {@code problem}, for answers that carry one problem per item of a batch. */
    public static jakarta.json.JsonObject json(ProblemException problem) {
        return object(problem.status(), problem.type(), problem.title(), problem.getMessage(), problem.extensions());
    }

    private static String body(
            int status, String type, String title, String detail, java.util.Map<String, String> extensions) {
        return object(status, type, title, detail, extensions).toString();
    }

    private static jakarta.json.JsonObject object(
            int status, String type, String title, String detail, java.util.Map<String, String> extensions) {
        JsonObjectBuilder body = Json.createObjectBuilder()
                .add("type", type)
                .add("title", title)
                .add("status", status)
                .add("detail", detail);
        extensions.forEach(body::add);
        return body.build();
    }

    /** The first throwable of {@code type} in the cause chain, looking through EJB wrappers. */
    static <T extends Throwable> T find(Throwable thrown, Class<T> type) {
        for (Throwable t = thrown;
                t != null;
                t = t instanceof EJBException ejb && ejb.getCausedByException() != null
                        ? ejb.getCausedByException()
                        : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }
}
