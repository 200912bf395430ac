package dev.courier.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses a request body over {@code courier.http.max-body-bytes} (2 MiB) with 413 before it is parsed: at once
 * when its {@code Content-Length} says so, else (a chunked body) as soon as that many bytes have been read. The
 * payload limits of the queue and the reliable message service (256 KiB each) are checked after parsing; this
 * keeps a huge or endless body from being parsed at all. Headers are bounded too: more than
 * {@code courier.http.max-header-count} (100) header lines, or more than {@code courier.http.max-header-bytes}
 * (16 KiB) of names and values, answer 431. (Liberty's own limits, far above these, guard the connection itself.)
 */
@Provider
@PreMatching
@ApplicationScoped
public class RequestSizeLimit implements ContainerRequestFilter {

    @Inject
    @ConfigProperty(name = "courier.http.max-body-bytes", defaultValue = "2097152")
    long maxBytes;

    @Inject
    @ConfigProperty(name = "courier.http.max-header-count", defaultValue = "100")
    int maxHeaders;

    @Inject
    @ConfigProperty(name = "courier.http.max-header-bytes", defaultValue = "16384")
    int maxHeaderBytes;

    @Override
    public void filter(ContainerRequestContext request) {
        int lines = 0;
        long bytes = 0;
        for (var header : request.getHeaders().entrySet()) {
            for (String value : header.getValue()) {
                lines++;
                bytes += header.getKey().length() + (value == null ? 0 : value.length());
            }
        }
        if (lines > maxHeaders || bytes > maxHeaderBytes) {
            throw new ProblemException(
                    431,
                    "Request header fields too large",
                    "the request has more than " + maxHeaders + " header fields or more than " + maxHeaderBytes
                            + " bytes of them");
        }
        if (request.getLength() > maxBytes) {
            throw tooLarge();
        }
        request.setEntityStream(new Bounded(request.getEntityStream(), maxBytes));
    }

    private ProblemException tooLarge() {
        return new ProblemException(413, "Request too large", "the request body is larger than " + maxBytes + " bytes");
    }

    /** Counts what is read and fails past the limit. */
    private final class Bounded extends FilterInputStream {

        private long left;

        Bounded(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(long n) {
            left -= n;
            if (left < 0) {
                throw tooLarge();
            }
        }
    }
}
