// Baseline: a bare Express app with express.json() that answers 201 (POST /v1/notifications)
// or 200 (GET /v1/notifications/:id). No auth, no store, no limiter.
import express from 'express';
import { notificationLike, storedBody } from './baseline-object.js';

const app = express();
app.use(express.json());
app.post('/v1/notifications', (req, res) => {
  res.status(201).json(notificationLike(req.body));
});
app.get('/v1/notifications/:id', (req, res) => {
  res.status(200).json(notificationLike(storedBody, req.params.id));
});

const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
