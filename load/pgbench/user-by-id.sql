-- The service's user-by-id statement (src/SyncApi/Infrastructure/Storage), every call a random user.
\set u random(1, :users)
SELECT name, country, created_at FROM users WHERE user_no = :u;
