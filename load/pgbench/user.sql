-- user-by-id: the service's statement (Queries.FindUser), every call a random user of 1..:users.
\set u random(1, :users)
SELECT name, country, created_at FROM users WHERE user_no = :u;
