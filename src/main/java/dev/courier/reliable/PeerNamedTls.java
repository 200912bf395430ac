package dev.courier.reliable;

import java.security.GeneralSecurityException;
import java.security.KeyManagementException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * A TLS context whose connections know their peer by a host name, whatever address the client connected to. The
 * JDK checks a server's certificate against the SNI name and, when that fails, against the peer's host as the
 * client gave it; a call made to the address Courier checked gives the address, so a certificate issued for that
 * address would pass for a producer's name. Here the peer's host is the name: the certificate must match the name,
 * and sessions are cached (and resumed) under the name, never under an address another name shares.
 */
final class PeerNamedTls extends SSLContext {

    private PeerNamedTls(SSLContext delegate, String name) {
        super(new Spi(delegate, name), delegate.getProvider(), delegate.getProtocol());
    }

    /** A new context, trusting {@code trust} (null: the JVM's trust store), whose peers are all {@code name}. */
    static SSLContext of(String name, TrustManager[] trust) throws GeneralSecurityException {
        SSLContext delegate = SSLContext.getInstance("TLS");
        delegate.init(null, trust, null);
        return new PeerNamedTls(delegate, name);
    }

    private static final class Spi extends SSLContextSpi {

        private final SSLContext delegate;
        private final String name;

        Spi(SSLContext delegate, String name) {
            this.delegate = delegate;
            this.name = name;
        }

        @Override
        protected void engineInit(KeyManager[] keys, TrustManager[] trust, SecureRandom random)
                throws KeyManagementException {
            throw new KeyManagementException("initialised when made");
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            return delegate.createSSLEngine(name, -1);
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            return delegate.createSSLEngine(name, port); // host: the address connected to
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            return delegate.getSocketFactory();
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            return delegate.getServerSocketFactory();
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return delegate.getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return delegate.getClientSessionContext();
        }

        @Override
        protected SSLParameters engineGetDefaultSSLParameters() {
            return delegate.getDefaultSSLParameters();
        }

        @Override
        protected SSLParameters engineGetSupportedSSLParameters() {
            return delegate.getSupportedSSLParameters();
        }
    }
}
