"""The road: one match's life on the platform, whatever it is played for — claimed by one attempt,
played on a referee with warm bots, recorded once, followed up (``lifecycle``, top to bottom);
its public frames in Redis while it plays (``live_frames``); how long it may take
(``time_limits``); who may see what of its replay (``replay_visibility``)."""
