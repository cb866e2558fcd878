import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 64;

function derive(password: string, salt: string): Promise<Buffer> {
    return new Promise((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, (err, key) => (err ? reject(err) : resolve(key))),
    );
}

export async function hashPassword(password: string): Promise<{ hash: string; salt: string }> {
    const salt = randomBytes(16).toString('hex');
    return { hash: (await derive(password, salt)).toString('hex'), salt };
}

export async function verifyPassword(password: string, hash: string, salt: string): Promise<boolean> {
    const expected = Buffer.from(hash, 'hex');
    const actual = await derive(password, salt);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Spends the same scrypt time for an unknown user, so timing does not tell which usernames exist. */
export async function burnPasswordCheck(password: string): Promise<void> {
    await derive(password, 'no-such-user-salt');
}

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';

/** Letters and digits without look-alikes (0/O, 1/l/I), so a printed password can be typed back. */
export function randomPassword(length = 16): string {
    let out = '';
    for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
    return out;
}
