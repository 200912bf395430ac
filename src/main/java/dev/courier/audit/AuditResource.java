package dev.courier.audit;

import dev.courier.platform.Json;
import dev.courier.platform.PageCursor;
import dev.courier.platform.ProblemException;
import dev.courier.web.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;

/**
 * {@code GET /api/audit?limit=&before=&after=}: the audit trail, newest first ({@code limit} 1..1000, default 100;
 * {@code before} an ISO instant: entries recorded before it; {@code after} the {@code next} of the page before, which
 * a full page gives).
 */
@ApplicationScoped
@Path("audit")
@Produces(MediaType.APPLICATION_JSON)
public class AuditResource {

    @Inject
    private AuditTrail trail;

    @RolesAllowed(Roles.ADMIN)
    @GET
    public JsonObject entries(
            @QueryParam("limit") Integer limit,
            @QueryParam("before") String before,
            @QueryParam("after") String after) {
        int size = limit == null ? 100 : limit;
        if (size < 1 || size > 1000) {
            throw ProblemException.invalid("'limit' must be between 1 and 1000");
        }
        Optional<Instant> until;
        try {
            until = before == null ? Optional.empty() : Optional.of(Instant.parse(before));
        } catch (DateTimeParseException e) {
            throw ProblemException.invalid("'before' must be an ISO-8601 instant such as 2026-11-30T12:00:00Z");
        }
        Optional<PageCursor> from = after == null ? Optional.empty() : Optional.of(PageCursor.decode(after));
        List<AuditEntry> entries = trail.entries(until, from, size);
        JsonArrayBuilder all = Json.createArrayBuilder();
        for (AuditEntry entry : entries) {
            JsonObjectBuilder json = Json.createObjectBuilder()
                    .add("id", entry.id())
                    .add("at", entry.at().toString())
                    .add("principal", entry.principal())
                    .add("action", entry.action())
                    .add("target", entry.target())
                    .add("status", entry.status());
            if (entry.detail() != null) {
                json.add("detail", entry.detail());
            }
            all.add(json);
        }
        JsonObjectBuilder page = Json.createObjectBuilder().add("entries", all);
        if (entries.size() == size) {
            AuditEntry last = entries.get(size - 1);
            page.add("next", new PageCursor(last.at(), last.id()).encode());
        }
        return page.build();
    }
}
