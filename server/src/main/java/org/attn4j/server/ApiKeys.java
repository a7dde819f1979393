package org.attn4j.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Locale;

/**
 * The API keys a server asks for ({@link ServerOptions#apiKeys()}): a request must carry
 * {@code Authorization: Bearer KEY} with one of them, else it is answered 401 {@code invalid_api_key}. The keys are
 * held as their SHA-256 digests and a presented key's digest is compared with every one of them by
 * {@link MessageDigest#isEqual} (time independent of where the bytes differ, and of which key matched), so neither
 * its length nor its content can be learnt from how long a refusal takes. No message names a key.
 */
final class ApiKeys {
    private static final String SCHEME = "bearer ";

    private final byte[][] digests;

    ApiKeys(List<String> keys) {
        this.digests = keys.stream().map(ApiKeys::sha256).toArray(byte[][]::new);
    }

    /** @return whether a key is asked for at all */
    boolean required() {
        return digests.length > 0;
    }

    /**
     * @param authorization the request's {@code Authorization} header, or null
     * @throws ApiException 401 {@code invalid_api_key} if keys are asked for and the header gives none of them
     */
    void check(String authorization) {
        if (!required()) {
            return;
        }
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
            throw ApiException.unauthorized("You didn't provide an API key. Give it in the Authorization header as "
                    + "'Authorization: Bearer YOUR_KEY'");
        }
        byte[] presented = sha256(authorization.substring(SCHEME.length()).trim());
        boolean matched = false;
        for (byte[] d : digests) {
            matched |= MessageDigest.isEqual(d, presented);
        }
        if (!matched) {
            throw ApiException.unauthorized("Incorrect API key provided");
        }
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
