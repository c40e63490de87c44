-- Why a session was signed out (docs/keys-and-permissions.md, "Dashboard sessions"): NULL for its
-- user's sign-out, 'limit' when a newer sign-in with the same credential passed the cap of live
-- sessions. A 401 then says which. Sessions signed out before this say "signed out", as they did.
ALTER TABLE sessions ADD COLUMN ended_by TEXT;
