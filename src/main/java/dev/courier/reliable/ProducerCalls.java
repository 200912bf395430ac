package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The calls Courier makes to a producer's endpoints (check-backs and notifications): to a URL {@link CallTargets}
 * allows, connected to the address it checked (the name goes in the {@code Host} header, and for {@code https} in
 * SNI and the certificate check), signed with the producer's secret ({@link Signer}), and answered within bounds
 * ({@link BoundedBody}). A call that gets no answer fails with a {@link Failed} whose message says why, in the
 * same words for every kind of call.
 */
@ApplicationScoped
class ProducerCalls {

    /** A call that got no answer; the message says why ("answer too large: …", "timed out: …", …). */
    static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;

        Failed(String message) {
            super(message);
        }
    }

    @Inject
    private ReliableSettings settings;

    private CallTargets.Resolver resolver = CallTargets.Resolver.SYSTEM;
    private TrustManager[] trust; // null: the JVM's
    private final HttpClient plain = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private static final int MAX_SECURE_CLIENTS = 64;

    /** One client per https host: SNI's name is the client's, since the URL it connects to names an address. */
    private final Map<String, HttpClient> secure = new ConcurrentHashMap<>();

    ProducerCalls() {}

    /** For tests: calls outside a server, with their own resolver and trusted certificates. */
    ProducerCalls(ReliableSettings settings, CallTargets.Resolver resolver, TrustManager[] trust) {
        this.settings = settings;
        this.resolver = resolver;
        this.trust = trust;
    }

    /**
     * Calls {@code url} without holding a thread while the producer answers; the answer is read up to {@code
     * limit} bytes and within {@code courier.reliable.check-back-call-timeout}, headers and body.
     *
     * @param body the request body, empty for a GET
     * @return completes with the answer (any status), or exceptionally with a {@link Failed}
     */
    CompletableFuture<HttpResponse<String>> call(URI url, String secret, String method, String body, long limit) {
        try {
            return send(url, secret, method, body, limit);
        } catch (RuntimeException e) { // whatever a URL can still provoke, it is this call's failure, not its caller's
            return failed("not called: " + e);
        }
    }

    private CompletableFuture<HttpResponse<String>> send(
            URI url, String secret, String method, String body, long limit) {
        CallTargets.Target target;
        HttpRequest.Builder request;
        try {
            target = CallTargets.check(
                    url, settings.allowedUrlHosts, settings.plainHttpHosts.orElse(List.of()), resolver);
            request = Signer.sign(
                    HttpRequest.newBuilder(target.connectTo())
                            .timeout(settings.callTimeout)
                            .header("Accept", "application/json")
                            .header("Content-Type", "application/json")
                            .method(
                                    method,
                                    body.isEmpty()
                                            ? HttpRequest.BodyPublishers.noBody()
                                            : HttpRequest.BodyPublishers.ofString(body)),
                    secret,
                    method,
                    url,
                    body);
        } catch (CallTargets.Refused e) { // what the name resolves to may have changed since the producer registered
            return failed("not called: " + e.getMessage());
        } catch (Signer.Unsigned e) {
            return failed(e.getMessage());
        }
        try {
            request.header("Host", target.hostHeader());
        } catch (IllegalArgumentException e) { // "restricted header name": the JVM option is missing
            return failed("not called: this server's JVM lacks -Djdk.httpclient.allowRestrictedHeaders=host,"
                    + " without which Courier cannot connect to the address it checked");
        }
        if (secure.size() > MAX_SECURE_CLIENTS) {
            secure.clear(); // each client holds a selector thread until it is collected: keep a bounded few
        }
        HttpClient http = target.secure()
                ? secure.computeIfAbsent(target.hostName().toLowerCase(java.util.Locale.ROOT), this::client)
                : plain;
        Duration deadline = settings.callTimeout;
        return BoundedBody.send(http, request.build(), limit, deadline).exceptionallyCompose(error -> {
            Throwable cause = BoundedBody.cause(error);
            if (cause instanceof BoundedBody.TooLarge) {
                return failed(cause.getMessage());
            }
            if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
                return failed("timed out: no answer (headers and body) within " + deadline);
            }
            return failed("no answer from " + url + ": " + cause);
        });
    }

    private static <T> CompletableFuture<T> failed(String why) {
        return CompletableFuture.failedFuture(new CompletionException(new Failed(why)));
    }

    /**
     * A client for https calls to {@code name} (or, for a URL that names an address, to that address): its
     * connections send the name by SNI and know their peer by it ({@link PeerNamedTls}), so the certificate is
     * checked against the name and sessions are cached under it.
     */
    private HttpClient client(String name) {
        try {
            SSLContext context = PeerNamedTls.of(name, trust);
            SSLParameters parameters = context.getDefaultSSLParameters();
            if (!CallTargets.isAddress(name)) {
                parameters.setServerNames(List.of(new SNIHostName(name)));
            }
            return HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .sslContext(context)
                    .sslParameters(parameters)
                    .build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no TLS context", e);
        }
    }
}
