package dev.courier.testing;

import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** Deployed only by the tests: lets client-side tests arm faults and drive rollback-only transactions. */
@Path("test")
@Produces(MediaType.APPLICATION_JSON)
public class TestControlResource {

    @Inject
    private ArmedFaults faults;

    @Inject
    private ProbeDriver driver;

    @Inject
    private SettableClock clock;

    @Inject
    private dev.courier.audit.AuditTrail audit;

    @jakarta.annotation.Resource(lookup = "jdbc/courier")
    private javax.sql.DataSource courier;

    /** Makes producer {@code name} one registered before signing existed: no signing secret. */
    @DELETE
    @Path("producers/{name}/signing-secret")
    public void forgetSigningSecret(@PathParam("name") String name) throws java.sql.SQLException {
        try (java.sql.Connection c = courier.getConnection();
                java.sql.PreparedStatement update =
                        c.prepareStatement("UPDATE courier_rm_producer SET signing_secret = NULL WHERE name = ?")) {
            update.setString(1, name);
            if (update.executeUpdate() != 1) {
                throw new jakarta.ws.rs.NotFoundException("no producer " + name);
            }
        }
    }

    /** Producer {@code name}'s signing secret as the database holds it (sealed, or clear from before sealing). */
    @GET
    @Path("producers/{name}/stored-secret")
    @Produces(MediaType.TEXT_PLAIN)
    public String storedSecret(@PathParam("name") String name) throws java.sql.SQLException {
        try (java.sql.Connection c = courier.getConnection();
                java.sql.PreparedStatement select =
                        c.prepareStatement("SELECT signing_secret FROM courier_rm_producer WHERE name = ?")) {
            select.setString(1, name);
            try (java.sql.ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    throw new jakarta.ws.rs.NotFoundException("no producer " + name);
                }
                return rows.getString(1);
            }
        }
    }

    /** Stores {@code secret} in clear as producer {@code name}'s, as Courier did before it sealed them. */
    @jakarta.ws.rs.PUT
    @Path("producers/{name}/stored-secret")
    @jakarta.ws.rs.Consumes(MediaType.WILDCARD)
    public void storeClearSecret(@PathParam("name") String name, String secret) throws java.sql.SQLException {
        try (java.sql.Connection c = courier.getConnection();
                java.sql.PreparedStatement update =
                        c.prepareStatement("UPDATE courier_rm_producer SET signing_secret = ? WHERE name = ?")) {
            update.setString(1, secret.trim());
            update.setString(2, name);
            if (update.executeUpdate() != 1) {
                throw new jakarta.ws.rs.NotFoundException("no producer " + name);
            }
        }
    }

    /** What the hourly retention job does, with a cutoff of the test's choosing. @return how many were purged */
    @POST
    @Path("audit/purge")
    public String purgeAudit(@QueryParam("before") String before) {
        return Json.createObjectBuilder()
                .add("purged", audit.purge(java.time.Instant.parse(before)))
                .build()
                .toString();
    }

    @Inject
    private dev.courier.audit.AuditRetention auditRetention;

    @Inject
    private dev.courier.platform.JobTurns turns;

    /** The hourly retention job as its timer runs it: {"purged"}, or {"turn": false} when another server holds it. */
    @POST
    @Path("audit/retention")
    public String auditRetention() {
        return auditRetention
                .purge()
                .map(purged -> Json.createObjectBuilder().add("purged", purged))
                .orElseGet(() -> Json.createObjectBuilder().add("turn", false))
                .build()
                .toString();
    }

    /** Takes {@code job}'s turn as another server would, for {@code seconds}: {"taken"}. */
    @POST
    @Path("turns/{job}")
    public String takeTurn(
            @PathParam("job") String job, @QueryParam("owner") String owner, @QueryParam("seconds") long seconds) {
        return Json.createObjectBuilder()
                .add(
                        "taken",
                        turns.take(job, owner, java.time.Duration.ofSeconds(seconds))
                                .isPresent())
                .build()
                .toString();
    }

    @POST
    @Path("clock/advance")
    public void advance(@QueryParam("seconds") double seconds) {
        clock.advance(java.time.Duration.ofMillis(Math.round(seconds * 1000)));
    }

    @POST
    @Path("faults/{point}")
    public void arm(
            @PathParam("point") String point,
            @QueryParam("times") @DefaultValue("1") int times,
            @QueryParam("hold") boolean hold,
            @QueryParam("error") boolean error) {
        if (error) {
            faults.armError(point, times);
        } else {
            faults.arm(point, times, hold);
        }
    }

    /**
     * How many threads wait at the held checkpoint {@code point}, and how many of its armed passes are still to
     * come: {"held", "left"}.
     */
    @GET
    @Path("faults/{point}/held")
    public String held(@PathParam("point") String point) {
        return Json.createObjectBuilder()
                .add("held", faults.held(point))
                .add("left", faults.left(point))
                .build()
                .toString();
    }

    @DELETE
    @Path("faults")
    public void disarm() {
        faults.disarmAll();
    }

    @GET
    @Path("probes/count")
    public String count(@QueryParam("body") String body) {
        return Json.createObjectBuilder()
                .add("count", driver.countRecords(body))
                .build()
                .toString();
    }

    @POST
    @Path("probes/rollback-only")
    public String rollbackOnly(@QueryParam("body") String body) {
        return Json.createObjectBuilder()
                .add("id", driver.recordThenSetRollbackOnly(body))
                .build()
                .toString();
    }
}
