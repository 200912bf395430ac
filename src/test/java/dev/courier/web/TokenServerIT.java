package dev.courier.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.DatabaseIndependent;
import dev.courier.testing.Http;
import dev.courier.testing.LibertyProcess;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Courier configured for tokens ({@code COURIER_AUTH=jwt}), as production runs it behind an identity provider:
 * a server of its own that trusts one issuer, one audience and one public key, all made up by this test, which
 * signs its own tokens (RS256). A valid token's {@code groups} grant roles, and its group paths are kept whole; an
 * expired token, another issuer, another audience or none, another key's signature, no token, or Basic credentials
 * get 401; a token over plain HTTP from another host gets 403.
 */
@DatabaseIndependent
class TokenServerIT {

    private static final String ISSUER = "https://issuer.courier.test";
    private static final String AUDIENCE = "courier-test";

    private static LibertyProcess server;
    private static KeyPair trusted;
    private static Http http;

    @BeforeAll
    static void start() throws Exception {
        trusted = rsa();
        Path key = Files.createTempFile("courier-jwt", ".pem");
        Files.writeString(
                key,
                "-----BEGIN PUBLIC KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                                .encodeToString(trusted.getPublic().getEncoded())
                        + "\n-----END PUBLIC KEY-----\n");
        int port = Integer.parseInt(System.getProperty("it.http.port", "19080"));
        server = new LibertyProcess("courier-jwt", port + 3, port + 4)
                .environment("COURIER_AUTH", "jwt")
                .environment("MP_JWT_VERIFY_PUBLICKEY_LOCATION", key.toUri().toString())
                .environment("MP_JWT_VERIFY_ISSUER", ISSUER)
                .environment("MP_JWT_VERIFY_AUDIENCES", AUDIENCE);
        LibertyProcess.startAll(server);
        http = server.http().anonymous();
    }

    @AfterAll
    static void stop() throws Exception {
        LibertyProcess.stopAll(server);
    }

    @Test
    void should_grant_the_roles_of_a_valid_tokens_groups() throws Exception {
        String admin = token(trusted.getPrivate(), ISSUER, Instant.now().plus(Duration.ofMinutes(5)), "courier-admin");
        Http.Response listed = call("GET", "api/queues", admin, null);
        assertEquals(200, listed.status(), listed::toString);
        call("DELETE", "api/queues/token_probe", admin, null); // left by an earlier run that failed
        assertEquals(201, call("PUT", "api/queues/token_probe", admin, "{}").status());

        String consumer =
                token(trusted.getPrivate(), ISSUER, Instant.now().plus(Duration.ofMinutes(5)), "courier-consumer");
        Http.Response forbidden = call("DELETE", "api/queues/token_probe", consumer, null);
        assertEquals(403, forbidden.status(), forbidden::toString);
        assertTrue(forbidden.contentType().startsWith("application/problem+json"), forbidden::toString);
        Http.Response received = call("POST", "api/queues/token_probe/receive", consumer, "{\"max\": 1}");
        assertEquals(200, received.status(), received::toString);
        assertEquals(204, call("DELETE", "api/queues/token_probe", admin, null).status());
    }

    @Test
    void should_keep_metrics_off_the_api_ports_even_for_an_admins_token() throws Exception {
        Instant later = Instant.now().plus(Duration.ofMinutes(5));
        int https = Integer.parseInt(System.getProperty("it.http.port", "19080")) + 4;
        String admin = token(trusted.getPrivate(), ISSUER, later, "courier-admin");
        Http.Response offered = Http.httpsGet("localhost", https, "metrics", "Bearer " + admin);
        assertEquals(404, offered.status(), offered::toString);
        Http.Response scraped = server.management().get("metrics");
        assertEquals(200, scraped.status(), scraped::toString);
        assertTrue(scraped.body().contains("courier_"), "Courier's own metrics on the management port");
    }

    @Test
    void should_narrow_a_queue_to_the_groups_its_grants_name() throws Exception {
        Instant later = Instant.now().plus(Duration.ofMinutes(5));
        String admin = token(trusted.getPrivate(), ISSUER, later, "courier-admin");
        call("DELETE", "api/queues/token_grants", admin, null); // left by an earlier run that failed
        assertEquals(
                201,
                call("PUT", "api/queues/token_grants", admin, "{\"grants\": {\"consume\": [\"group:team-x\"]}}")
                        .status());
        try {
            String member = token(trusted.getPrivate(), ISSUER, later, "courier-consumer", "team-x");
            String outsider = token(trusted.getPrivate(), ISSUER, later, "courier-consumer", "team-y");
            Http.Response granted = call("POST", "api/queues/token_grants/receive", member, "{\"max\": 1}");
            assertEquals(200, granted.status(), "a token's group is granted: " + granted);
            Http.Response refused = call("POST", "api/queues/token_grants/receive", outsider, "{\"max\": 1}");
            assertEquals(403, refused.status(), refused::toString);
            assertEquals("urn:courier:problem:not-granted", refused.json().getString("type"));
        } finally {
            call("DELETE", "api/queues/token_grants", admin, null);
        }
    }

    /**
     * A token's principal is its subject (issue 50, item 7): grants name {@code user:<sub>}, and a token whose
     * {@code upn} and {@code preferred_username} (names users can often edit) are another user's is not that user;
     * a token with a subject and no {@code upn} is taken. Before, the {@code upn} was the caller: a user calling
     * itself "orders" acted for "orders", and a token without a {@code upn} was refused.
     */
    @Test
    void should_match_a_tokens_subject_not_a_name_its_user_can_choose() throws Exception {
        Instant later = Instant.now().plus(Duration.ofMinutes(5));
        String admin = token(trusted.getPrivate(), ISSUER, later, "courier-admin");
        call("DELETE", "api/queues/token_subjects", admin, null); // left by an earlier run that failed
        assertEquals(
                201,
                call("PUT", "api/queues/token_subjects", admin, "{\"grants\": {\"consume\": [\"user:orders\"]}}")
                        .status());
        try {
            String impostor = tokenOf(
                    trusted.getPrivate(), ISSUER, AUDIENCE, later, "mallory", "orders", "orders", "courier-consumer");
            String orders = tokenOf(
                    trusted.getPrivate(),
                    ISSUER,
                    AUDIENCE,
                    later,
                    "orders",
                    null,
                    "Orders service",
                    "courier-consumer");
            Http.Response refused = call("POST", "api/queues/token_subjects/receive", impostor, "{\"max\": 1}");
            assertEquals(403, refused.status(), "a preferred_username is not a subject: " + refused);
            assertEquals("urn:courier:problem:not-granted", refused.json().getString("type"));
            Http.Response granted = call("POST", "api/queues/token_subjects/receive", orders, "{\"max\": 1}");
            assertEquals(200, granted.status(), "the subject is granted: " + granted);
        } finally {
            call("DELETE", "api/queues/token_subjects", admin, null);
        }
    }

    @Test
    void should_keep_a_groups_full_path_so_that_two_groups_of_one_name_stay_apart() throws Exception {
        Instant later = Instant.now().plus(Duration.ofMinutes(5));
        String admin = token(trusted.getPrivate(), ISSUER, later, "courier-admin");
        call("DELETE", "api/queues/token_paths", admin, null); // left by an earlier run that failed
        assertEquals(
                201,
                call("PUT", "api/queues/token_paths", admin, "{\"grants\": {\"consume\": [\"group:/emea/payments\"]}}")
                        .status());
        try {
            String member = token(trusted.getPrivate(), ISSUER, later, "courier-consumer", "/emea/payments");
            String namesake = token(trusted.getPrivate(), ISSUER, later, "courier-consumer", "/apac/payments");
            Http.Response granted = call("POST", "api/queues/token_paths/receive", member, "{\"max\": 1}");
            assertEquals(200, granted.status(), "the granted path: " + granted);
            Http.Response refused = call("POST", "api/queues/token_paths/receive", namesake, "{\"max\": 1}");
            assertEquals(403, refused.status(), "another parent's group of the same name: " + refused);
            assertEquals("urn:courier:problem:not-granted", refused.json().getString("type"));
        } finally {
            call("DELETE", "api/queues/token_paths", admin, null);
        }
    }

    @Test
    void should_refuse_a_token_over_plain_http_from_another_host_and_take_it_over_https() throws Exception {
        String host = Http.externalAddress();
        String admin = token(trusted.getPrivate(), ISSUER, Instant.now().plus(Duration.ofMinutes(5)), "courier-admin");
        Http remote = new Http("http://" + host + ":" + http.uri("/").getPort() + "/").anonymous();
        Http.Response refused = remote.send(HttpRequest.newBuilder(remote.uri("api/queues"))
                .header("Authorization", "Bearer " + admin)
                .GET());
        assertEquals(403, refused.status(), refused::toString);
        assertEquals("urn:courier:problem:https-required", refused.json().getString("type"), refused::toString);
        assertEquals(200, call("GET", "api/queues", admin, null).status(), "from this machine, plain HTTP is taken");
        int https = Integer.parseInt(System.getProperty("it.http.port", "19080")) + 4;
        assertEquals(
                200,
                Http.httpsGet(host, https, "api/queues", "Bearer " + admin).status(),
                "over HTTPS a token is taken from anywhere");
    }

    @Test
    void should_refuse_an_expired_token_another_issuer_another_audience_another_key_and_no_token() throws Exception {
        Instant later = Instant.now().plus(Duration.ofMinutes(5));
        String expired = token(trusted.getPrivate(), ISSUER, Instant.now().minus(Duration.ofHours(1)), "courier-admin");
        String otherIssuer = token(trusted.getPrivate(), "https://somebody.else", later, "courier-admin");
        String otherAudience = token(trusted.getPrivate(), ISSUER, "another-application", later, "courier-admin");
        String noAudience = token(trusted.getPrivate(), ISSUER, null, later, "courier-admin");
        String otherKey = token(rsa().getPrivate(), ISSUER, later, "courier-admin");
        for (String refused : new String[] {expired, otherIssuer, otherAudience, noAudience, otherKey}) {
            Http.Response answer = call("GET", "api/queues", refused, null);
            assertEquals(401, answer.status(), answer::toString);
            assertTrue(answer.contentType().startsWith("application/problem+json"), answer::toString);
        }
        assertEquals(401, http.get("api/queues").status(), "no token");
        Http.Response basic = http.send(HttpRequest.newBuilder(http.uri("api/queues"))
                .header("Authorization", Http.basic("admin", Http.password("admin")))
                .GET());
        assertEquals(401, basic.status(), "a server configured for tokens takes no passwords: " + basic);
        assertEquals(200, server.management().get("health/ready").status(), "health stays open");
    }

    private static Http.Response call(String method, String path, String token, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(http.uri(path)).header("Authorization", "Bearer " + token);
        return http.send(
                json == null
                        ? request.method(method, HttpRequest.BodyPublishers.noBody())
                        : request.header("Content-Type", "application/json")
                                .method(method, HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A signed JWT (RS256) for user "tester" in {@code groups}, for Courier's audience. */
    private static String token(PrivateKey key, String issuer, Instant expires, String... groups)
            throws GeneralSecurityException {
        return token(key, issuer, AUDIENCE, expires, groups);
    }

    /** A signed JWT (RS256) for user "tester" in {@code groups}, for {@code audience} (none when null). */
    private static String token(PrivateKey key, String issuer, String audience, Instant expires, String... groups)
            throws GeneralSecurityException {
        return tokenOf(key, issuer, audience, expires, "tester", "tester", null, groups);
    }

    /**
     * A signed JWT (RS256) for subject {@code sub}, with {@code upn} and {@code preferredUsername} when not null, in
     * {@code groups}, for {@code audience} (none when null).
     */
    private static String tokenOf(
            PrivateKey key,
            String issuer,
            String audience,
            Instant expires,
            String sub,
            String upn,
            String preferredUsername,
            String... groups)
            throws GeneralSecurityException {
        JsonArrayBuilder groupArray = Json.createArrayBuilder();
        for (String group : groups) {
            groupArray.add(group);
        }
        Instant issued = expires.minus(Duration.ofMinutes(10));
        String header = Json.createObjectBuilder()
                .add("alg", "RS256")
                .add("typ", "JWT")
                .build()
                .toString();
        jakarta.json.JsonObjectBuilder claims = Json.createObjectBuilder();
        if (audience != null) {
            claims.add("aud", audience);
        }
        if (upn != null) {
            claims.add("upn", upn);
        }
        if (preferredUsername != null) {
            claims.add("preferred_username", preferredUsername);
        }
        claims.add("iss", issuer)
                .add("sub", sub)
                .add("jti", UUID.randomUUID().toString())
                .add("iat", issued.getEpochSecond())
                .add("exp", expires.getEpochSecond())
                .add("groups", groupArray);
        String signed = base64Url(header.getBytes(StandardCharsets.UTF_8)) + "."
                + base64Url(claims.build().toString().getBytes(StandardCharsets.UTF_8));
        Signature signature = Signature.getInstance("SHA256withRSA");
        signature.initSign(key);
        signature.update(signed.getBytes(StandardCharsets.US_ASCII));
        return signed + "." + base64Url(signature.sign());
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }
}
