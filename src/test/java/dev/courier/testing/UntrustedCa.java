package dev.courier.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A certificate authority nobody trusts, made with openssl: for the tests that a server it did not sign is refused. */
public final class UntrustedCa {

    private UntrustedCa() {}

    /** Makes its certificate (and key) in {@code dir}. @return the certificate, PEM */
    public static Path in(Path dir) throws IOException, InterruptedException {
        Path pem = dir.resolve("untrusted-ca.pem");
        Process openssl = new ProcessBuilder(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "ec",
                        "-pkeyopt",
                        "ec_paramgen_curve:prime256v1",
                        "-nodes",
                        "-days",
                        "1",
                        "-subj",
                        "/CN=someone else",
                        "-keyout",
                        dir.resolve("untrusted-ca.key").toString(),
                        "-out",
                        pem.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
            throw new IOException("openssl made no CA: " + output);
        }
        return pem;
    }
}
