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
    private final HttpClient plain = client(null, false);
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
        CallTargets.Target target;
        HttpRequest request;
        try {
            target = CallTargets.check(
                    url, settings.allowedUrlHosts, settings.plainHttpHosts.orElse(List.of()), resolver);
            request = Signer.sign(
                            HttpRequest.newBuilder(target.connectTo())
                                    .header("Host", target.hostHeader())
                                    .timeout(settings.callTimeout)
                                    .header("Accept", "application/json")
                                    .method(
                                            method,
                                            body.isEmpty()
                                                    ? HttpRequest.BodyPublishers.noBody()
                                                    : HttpRequest.BodyPublishers.ofString(body)),
                            secret,
                            method,
                            url,
                            body)
                    .header("Content-Type", "application/json")
                    .build();
        } catch (CallTargets.Refused e) { // what the name resolves to may have changed since the producer registered
            return failed("not called: " + e.getMessage());
        } catch (Signer.Unsigned e) {
            return failed(e.getMessage());
        } catch (IllegalArgumentException e) { // "restricted header name": the JVM option below is missing
            return failed("not called: this server's JVM lacks -Djdk.httpclient.allowRestrictedHeaders=host,"
                    + " without which Courier cannot connect to the address it checked");
        }
        if (secure.size() > MAX_SECURE_CLIENTS) {
            secure.clear(); // each client holds a selector thread until it is collected: keep a bounded few
        }
        HttpClient http = !target.secure()
                ? plain
                : target.namedByAddress()
                        ? secure.computeIfAbsent("", name -> client(null, true))
                        : secure.computeIfAbsent(target.hostName().toLowerCase(java.util.Locale.ROOT), this::client);
        Duration deadline = settings.callTimeout;
        return BoundedBody.send(http, request, limit, deadline).exceptionallyCompose(error -> {
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

    private HttpClient client(String sniName) {
        return client(sniName, true);
    }

    /** @param sniName the name to send by SNI and check the certificate against; null for none */
    private HttpClient client(String sniName, boolean secure) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER);
        if (secure) {
            try {
                // A context of its own per name: TLS sessions are cached per address and port, and one resumed for
                // another name at the same address would skip the certificate's check against this name.
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, trust, null);
                SSLParameters parameters = context.getDefaultSSLParameters();
                if (sniName != null) { // checked against the certificate too, before the address connected to
                    parameters.setServerNames(List.of(new SNIHostName(sniName)));
                }
                builder.sslContext(context).sslParameters(parameters);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("this JVM has no TLS context", e);
            }
        }
        return builder.build();
    }
}
